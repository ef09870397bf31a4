// The complex-stencil text format: parser (line and column of every problem), printer, validation, analysis.
#include "core/dag/dag.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/common/nearest_name.hpp"

namespace se::dag {

const char* to_string(Type t) { return t == Type::F64 ? "f64" : "f32"; }
std::size_t size_of(Type t) { return t == Type::F64 ? 8 : 4; }

std::string Diagnostic::to_string() const {
  if (pos.line <= 0) return message;
  return fmt::format("line {}, column {}: {}", pos.line, pos.column, message);
}

namespace {
std::string join_diagnostics(const std::vector<Diagnostic>& d) {
  std::string out;
  for (const auto& x : d) {
    if (!out.empty()) out += '\n';
    out += x.to_string();
  }
  return out;
}
} // namespace

DagError::DagError(std::vector<Diagnostic> d) : InputError(join_diagnostics(d)), diagnostics_(std::move(d)) {}

std::vector<int> Program::stencils() const {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i)
    if (!nodes[i].is_input) out.push_back(i);
  return out;
}
std::vector<int> Program::inputs() const {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i)
    if (nodes[i].is_input) out.push_back(i);
  return out;
}
std::vector<int> Program::outputs() const {
  std::vector<bool> read(nodes.size(), false);
  for (const Node& n : nodes)
    for (const Expr& e : n.expr)
      if (e.op == Op::Read && e.grid >= 0) read[e.grid] = true;
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i)
    if (!nodes[i].is_input && !read[i]) out.push_back(i);
  return out;
}
int Program::find(std::string_view name) const {
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i)
    if (nodes[i].name == name) return i;
  return -1;
}

// ---- Tokenizer and parser --------------------------------------------------------------------------------

namespace {

enum class Tok { Name, Number, Punct, End };
struct Token {
  Tok kind = Tok::End;
  std::string text;
  int column = 0; // 1-based
};

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

struct LineError {
  int column;
  std::string message;
};

std::vector<Token> tokenize(std::string_view line) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (c == '#') break;
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    Token t;
    t.column = static_cast<int>(i) + 1;
    if (is_name_start(c)) {
      std::size_t j = i;
      while (j < line.size() && is_name_char(line[j])) ++j;
      t.kind = Tok::Name;
      t.text = std::string(line.substr(i, j - i));
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < line.size() &&
                                                                std::isdigit(static_cast<unsigned char>(line[i + 1])))) {
      std::size_t j = i;
      while (j < line.size() && (std::isdigit(static_cast<unsigned char>(line[j])) || line[j] == '.')) ++j;
      if (j < line.size() && (line[j] == 'e' || line[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < line.size() && (line[k] == '+' || line[k] == '-')) ++k;
        if (k < line.size() && std::isdigit(static_cast<unsigned char>(line[k]))) {
          j = k;
          while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
        }
      }
      t.kind = Tok::Number;
      t.text = std::string(line.substr(i, j - i));
      i = j;
    } else if (std::string_view("+-*/()[],=:").find(c) != std::string_view::npos) {
      t.kind = Tok::Punct;
      t.text = std::string(1, c);
      ++i;
    } else {
      throw LineError{static_cast<int>(i) + 1, fmt::format("unexpected character '{}'", c)};
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.kind = Tok::End;
  end.column = static_cast<int>(line.size()) + 1;
  if (std::size_t hash = line.find('#'); hash != std::string_view::npos) end.column = static_cast<int>(hash) + 1;
  out.push_back(end);
  return out;
}

const std::set<std::string>& keywords() {
  static const std::set<std::string> k{"program", "domain", "input", "sqrt", "abs", "min", "max", "f64", "f32"};
  return k;
}

// A forward or unknown read, resolved once every line has been seen.
struct PendingRead {
  int node;      // the stencil reading it
  std::size_t expr;
  std::string name;
  SourcePos pos;
};

class ExprParser {
public:
  ExprParser(const std::vector<Token>& toks, std::size_t pos, int line, const std::map<std::string, int>& names,
             std::vector<Expr>& out, std::vector<PendingRead>& pending, int node)
      : t_(toks), i_(pos), line_(line), names_(names), out_(out), pending_(pending), node_(node) {}

  int parse_all() {
    const int root = expr();
    if (t_[i_].kind != Tok::End) fail(t_[i_].column, fmt::format("unexpected '{}' after the expression", t_[i_].text));
    return root;
  }

private:
  [[noreturn]] void fail(int col, std::string msg) { throw LineError{col, std::move(msg)}; }
  bool punct(const char* p) const { return t_[i_].kind == Tok::Punct && t_[i_].text == p; }
  void expect(const char* p, const char* what) {
    if (!punct(p))
      fail(t_[i_].column, fmt::format("expected '{}' {}, found {}", p, what,
                                      t_[i_].kind == Tok::End ? "the end of the line" : "'" + t_[i_].text + "'"));
    ++i_;
  }
  int push(Expr e) {
    out_.push_back(e);
    return static_cast<int>(out_.size()) - 1;
  }
  int expr() {
    int lhs = term();
    while (punct("+") || punct("-")) {
      Expr e;
      e.op = t_[i_].text == "+" ? Op::Add : Op::Sub;
      e.pos = {line_, t_[i_].column};
      ++i_;
      const int rhs = term();
      e.a = lhs;
      e.b = rhs;
      lhs = push(e);
    }
    return lhs;
  }
  int term() {
    int lhs = unary();
    while (punct("*") || punct("/")) {
      Expr e;
      e.op = t_[i_].text == "*" ? Op::Mul : Op::Div;
      e.pos = {line_, t_[i_].column};
      ++i_;
      const int rhs = unary();
      e.a = lhs;
      e.b = rhs;
      lhs = push(e);
    }
    return lhs;
  }
  int unary() {
    if (punct("-")) {
      Expr e;
      e.op = Op::Neg;
      e.pos = {line_, t_[i_].column};
      ++i_;
      e.a = unary();
      return push(e);
    }
    if (punct("+")) {
      ++i_;
      return unary();
    }
    return primary();
  }
  int offset() {
    int sign = 1;
    const int col = t_[i_].column;
    if (punct("-") || punct("+")) {
      sign = punct("-") ? -1 : 1;
      ++i_;
    }
    if (t_[i_].kind != Tok::Number || t_[i_].text.find_first_not_of("0123456789") != std::string::npos)
      fail(t_[i_].column, "an offset is a whole number from -3 to 3");
    int v = 0;
    const auto& s = t_[i_].text;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || v > kMaxRadius)
      fail(col, fmt::format("offset {}{} is beyond radius {} (offsets run from -{} to {})", sign < 0 ? "-" : "", s,
                            kMaxRadius, kMaxRadius, kMaxRadius));
    ++i_;
    return sign * v;
  }
  int primary() {
    const Token& t = t_[i_];
    if (t.kind == Tok::Number) {
      Expr e;
      e.op = Op::Number;
      e.pos = {line_, t.column};
      const auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), e.value);
      if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size() || !std::isfinite(e.value))
        fail(t.column, fmt::format("'{}' is not a number", t.text));
      ++i_;
      return push(e);
    }
    if (punct("(")) {
      ++i_;
      const int inner = expr();
      expect(")", "to close the parenthesis");
      return inner;
    }
    if (t.kind == Tok::Name) {
      static const std::map<std::string, std::pair<Op, int>> funcs{
          {"sqrt", {Op::Sqrt, 1}}, {"abs", {Op::Abs, 1}}, {"min", {Op::Min, 2}}, {"max", {Op::Max, 2}}};
      if (auto f = funcs.find(t.text); f != funcs.end()) {
        Expr e;
        e.op = f->second.first;
        e.pos = {line_, t.column};
        ++i_;
        expect("(", fmt::format("after {}", t.text).c_str());
        e.a = expr();
        if (f->second.second == 2) {
          expect(",", fmt::format("between the two arguments of {}", t.text).c_str());
          e.b = expr();
        }
        expect(")", fmt::format("to close {}(", t.text).c_str());
        return push(e);
      }
      if (keywords().count(t.text)) fail(t.column, fmt::format("'{}' is a keyword, not a grid", t.text));
      Expr e;
      e.op = Op::Read;
      e.pos = {line_, t.column};
      ++i_;
      if (punct("[")) {
        ++i_;
        e.off[0] = offset();
        expect(",", "between the offsets (write g[dx,dy,dz])");
        e.off[1] = offset();
        expect(",", "between the offsets (write g[dx,dy,dz])");
        e.off[2] = offset();
        expect("]", "after the three offsets");
      }
      const int idx = push(e);
      if (auto it = names_.find(t.text); it != names_.end())
        out_[idx].grid = it->second;
      else
        pending_.push_back({node_, static_cast<std::size_t>(idx), t.text, e.pos});
      return idx;
    }
    if (t.kind == Tok::End) fail(t.column, "the expression ends too early");
    fail(t.column, fmt::format("unexpected '{}'", t.text));
  }

  const std::vector<Token>& t_;
  std::size_t i_;
  int line_;
  const std::map<std::string, int>& names_;
  std::vector<Expr>& out_;
  std::vector<PendingRead>& pending_;
  int node_;
};

Type parse_type(const Token& t) {
  if (t.kind == Tok::Name && t.text == "f64") return Type::F64;
  if (t.kind == Tok::Name && t.text == "f32") return Type::F32;
  throw LineError{t.column, fmt::format("expected a type, f64 or f32, found {}",
                                        t.kind == Tok::End ? "the end of the line" : "'" + t.text + "'")};
}

int parse_extent_token(const Token& t, const char* what) {
  int v = 0;
  const auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
  if (t.kind != Tok::Number || r.ec != std::errc() || r.ptr != t.text.data() + t.text.size() || v < 1 || v > 4096)
    throw LineError{t.column, fmt::format("{} takes whole numbers from 1 to 4096, found '{}'", what, t.text)};
  return v;
}

// "128x128x64" arrives as Number("128") Name("x128x64"): read it back from the tokens.
std::array<int, 3> parse_domain_tokens(const std::vector<Token>& toks, std::size_t& i, const char* what) {
  std::array<int, 3> d{};
  if (toks[i].kind == Tok::Number && toks[i + 1].kind == Tok::Name && toks[i + 1].text[0] == 'x') {
    std::string all = toks[i].text + toks[i + 1].text;
    const int col = toks[i].column;
    i += 2;
    std::vector<std::string> parts;
    std::stringstream ss(all);
    std::string part;
    while (std::getline(ss, part, 'x')) parts.push_back(part);
    if (parts.size() != 3) throw LineError{col, fmt::format("{} is written NXxNYxNZ or NX NY NZ, found '{}'", what, all)};
    for (int k = 0; k < 3; ++k) {
      Token t;
      t.kind = Tok::Number;
      t.text = parts[k];
      t.column = col;
      d[k] = parse_extent_token(t, what);
    }
    return d;
  }
  for (int k = 0; k < 3; ++k) d[k] = parse_extent_token(toks[i++], what);
  return d;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& names) {
  const std::string best = nearest_name(word, names);
  return best.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", best);
}

} // namespace

Program parse_program(std::string_view text, std::vector<Diagnostic>& diags, std::string_view default_name) {
  Program p;
  p.name = std::string(default_name);
  std::map<std::string, int> names;       // defined so far
  std::map<std::string, int> defined_at;  // name -> line (all lines, for read-before-define)
  std::vector<PendingRead> pending;
  bool seen_node = false, seen_domain = false;
  std::vector<std::string> lines;
  {
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      lines.emplace_back(text.substr(start, end - start));
      start = end + 1;
      if (end == text.size()) break;
    }
  }
  // Where every stencil is defined: a read of a later line is "read before it is defined" (or a cycle).
  std::map<std::string, std::pair<int, int>> later; // name -> (line, node index once parsed)
  for (int ln = 0; ln < static_cast<int>(lines.size()); ++ln) {
    const int line = ln + 1;
    std::vector<Token> toks;
    try {
      toks = tokenize(lines[ln]);
    } catch (const LineError& e) {
      diags.push_back({{line, e.column}, e.message});
      continue;
    }
    if (toks.size() == 1) continue; // blank or comment
    try {
      const Token& first = toks[0];
      if (first.kind == Tok::Name && first.text == "program" && !(toks[1].kind == Tok::Punct)) {
        if (toks[1].kind != Tok::Name) throw LineError{toks[1].column, "program takes a name"};
        p.name = toks[1].text;
        if (toks[2].kind != Tok::End) throw LineError{toks[2].column, "program takes one name"};
      } else if (first.kind == Tok::Name && first.text == "domain" && !(toks[1].kind == Tok::Punct)) {
        if (seen_node) throw LineError{first.column, "domain must come before the first input or stencil"};
        if (seen_domain) throw LineError{first.column, "domain is given twice"};
        std::size_t i = 1;
        p.domain = parse_domain_tokens(toks, i, "domain");
        seen_domain = true;
        if (toks[i].kind != Tok::End) throw LineError{toks[i].column, "domain takes three sizes: nx ny nz"};
      } else if (first.kind == Tok::Name && first.text == "input" && toks[1].kind == Tok::Name) {
        Node n;
        n.is_input = true;
        n.name = toks[1].text;
        n.pos = {line, toks[1].column};
        if (keywords().count(n.name)) throw LineError{toks[1].column, fmt::format("'{}' is a keyword, not a grid", n.name)};
        n.type = parse_type(toks[2]);
        std::size_t i = 3;
        if (toks[i].kind != Tok::End) {
          const int col = toks[i].column;
          const auto d = parse_domain_tokens(toks, i, "an input's domain");
          if (d != p.domain)
            throw LineError{col, fmt::format("domain mismatch: input '{}' is {}x{}x{}, the program's domain is {}x{}x{}",
                                             n.name, d[0], d[1], d[2], p.domain[0], p.domain[1], p.domain[2])};
          n.domain_given = true;
          if (toks[i].kind != Tok::End) throw LineError{toks[i].column, "an input line ends after its domain"};
        }
        if (auto it = names.find(n.name); it != names.end())
          throw LineError{toks[1].column, fmt::format("'{}' is defined twice (first on line {})", n.name,
                                                      p.nodes[it->second].pos.line)};
        seen_node = true;
        names[n.name] = static_cast<int>(p.nodes.size());
        p.nodes.push_back(std::move(n));
      } else if (first.kind == Tok::Name) {
        Node n;
        n.is_input = false;
        n.name = first.text;
        n.pos = {line, first.column};
        if (keywords().count(n.name))
          throw LineError{first.column, fmt::format("'{}' is a keyword; a statement is 'program', 'domain', 'input' "
                                                    "or 'name = expression'", n.name)};
        std::size_t i = 1;
        if (toks[i].kind == Tok::Punct && toks[i].text == ":") {
          n.type = parse_type(toks[i + 1]);
          n.type_given = true;
          i += 2;
        }
        if (!(toks[i].kind == Tok::Punct && toks[i].text == "="))
          throw LineError{toks[i].column, fmt::format("expected '=' after '{}' (a stencil is 'name = expression')", n.name)};
        if (auto it = names.find(n.name); it != names.end())
          throw LineError{first.column, fmt::format("'{}' is defined twice (first on line {})", n.name,
                                                    p.nodes[it->second].pos.line)};
        const int idx = static_cast<int>(p.nodes.size());
        std::vector<PendingRead> mine;
        ExprParser ep(toks, i + 1, line, names, n.expr, mine, idx);
        ep.parse_all();
        for (auto& r : mine) pending.push_back(r);
        seen_node = true;
        names[n.name] = idx;
        p.nodes.push_back(std::move(n));
      } else {
        throw LineError{first.column, "a statement is 'program NAME', 'domain NX NY NZ', 'input NAME TYPE' or "
                                      "'NAME = expression'"};
      }
    } catch (const LineError& e) {
      diags.push_back({{line, e.column}, e.message});
      // Remember the name of a refused stencil line, so its readers get "defined with an error" rather than
      // "unknown" (one cause, one message).
      if (toks[0].kind == Tok::Name && !keywords().count(toks[0].text) && toks.size() > 1 && toks[1].kind == Tok::Punct)
        defined_at.emplace(toks[0].text, line);
      if (toks[0].kind == Tok::Name && toks[0].text == "input" && toks.size() > 1 && toks[1].kind == Tok::Name)
        defined_at.emplace(toks[1].text, line);
    }
  }
  // Forward and unknown reads: a cycle, a read before the definition, or an unknown name.
  for (const PendingRead& r : pending) {
    if (auto it = names.find(r.name); it != names.end()) {
      const int target = it->second;
      const Node& reader = p.nodes[r.node];
      // Does `target` reach `r.node` through reads (resolved or pending)? Then it is a cycle.
      std::vector<int> path;
      std::set<int> seen;
      std::function<bool(int)> reaches = [&](int from) -> bool {
        if (from == r.node) return true;
        if (!seen.insert(from).second) return false;
        const Node& n = p.nodes[from];
        std::set<int> next;
        for (const Expr& e : n.expr)
          if (e.op == Op::Read && e.grid >= 0) next.insert(e.grid);
        for (const PendingRead& q : pending)
          if (q.node == from)
            if (auto jt = names.find(q.name); jt != names.end()) next.insert(jt->second);
        for (int m : next)
          if (reaches(m)) {
            path.push_back(m);
            return true;
          }
        return false;
      };
      if (target == r.node) {
        diags.push_back({r.pos, fmt::format("cycle: '{}' reads itself", r.name)});
      } else if (reaches(target)) {
        std::string chain = reader.name + " <- " + r.name;
        for (auto it2 = path.rbegin(); it2 != path.rend(); ++it2) chain += " <- " + p.nodes[*it2].name;
        diags.push_back({r.pos, fmt::format("cycle: {} (a stencil program is acyclic)", chain)});
      } else {
        diags.push_back({r.pos, fmt::format("'{}' is read before it is defined (on line {}); define it above line {}",
                                            r.name, p.nodes[target].pos.line, r.pos.line)});
      }
    } else if (auto d = defined_at.find(r.name); d != defined_at.end()) {
      diags.push_back({r.pos, fmt::format("'{}' is defined on line {}, which has an error", r.name, d->second)});
    } else {
      std::vector<std::string> all;
      for (const auto& n : p.nodes) all.push_back(n.name);
      diags.push_back({r.pos, fmt::format("unknown grid '{}'{}", r.name, did_you_mean(r.name, all))});
    }
  }
  if (diags.empty()) {
    for (auto& d : validate(p)) diags.push_back(d);
    // Stencil types follow their reads (when not written).
    if (diags.empty())
      for (auto& n : p.nodes)
        if (!n.is_input && !n.type_given)
          for (const Expr& e : n.expr)
            if (e.op == Op::Read) {
              n.type = p.nodes[e.grid].type;
              break;
            }
  }
  std::stable_sort(diags.begin(), diags.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.pos.line != b.pos.line ? a.pos.line < b.pos.line : a.pos.column < b.pos.column;
  });
  return p;
}

std::vector<Diagnostic> validate(const Program& p) {
  std::vector<Diagnostic> d;
  std::map<std::string, int> first;
  if (p.domain[0] < 1 || p.domain[1] < 1 || p.domain[2] < 1) d.push_back({{}, "the domain must be at least 1x1x1"});
  std::vector<Type> type(p.nodes.size(), Type::F64);
  for (int i = 0; i < static_cast<int>(p.nodes.size()); ++i) {
    const Node& n = p.nodes[i];
    if (n.name.empty() || !is_name_start(n.name[0]) ||
        !std::all_of(n.name.begin(), n.name.end(), [](char c) { return is_name_char(c); }) || keywords().count(n.name))
      d.push_back({n.pos, fmt::format("'{}' is not a valid grid name", n.name)});
    if (auto [it, fresh] = first.emplace(n.name, i); !fresh)
      d.push_back({n.pos, fmt::format("'{}' is defined twice (first on line {})", n.name, p.nodes[it->second].pos.line)});
    type[i] = n.type;
    if (n.is_input) continue;
    if (n.expr.empty()) {
      d.push_back({n.pos, fmt::format("stencil '{}' has no expression", n.name)});
      continue;
    }
    bool have_type = n.type_given;
    Type t = n.type;
    std::string type_from = have_type ? "its declaration" : "";
    for (std::size_t k = 0; k < n.expr.size(); ++k) {
      const Expr& e = n.expr[k];
      const auto bad_child = [&](int c) { return c < 0 || c >= static_cast<int>(k); };
      switch (e.op) {
      case Op::Number: break;
      case Op::Read:
        if (e.grid < 0 || e.grid >= static_cast<int>(p.nodes.size())) {
          d.push_back({e.pos, "a read of no grid"});
          break;
        }
        if (e.grid == i) {
          d.push_back({e.pos, fmt::format("cycle: '{}' reads itself", n.name)});
          break;
        }
        if (e.grid > i) {
          d.push_back({e.pos, fmt::format("'{}' is read before it is defined (on line {})", p.nodes[e.grid].name,
                                          p.nodes[e.grid].pos.line)});
          break;
        }
        for (int c = 0; c < 3; ++c)
          if (std::abs(e.off[c]) > kMaxRadius)
            d.push_back({e.pos, fmt::format("offset {} of '{}' is beyond radius {}", e.off[c], p.nodes[e.grid].name,
                                            kMaxRadius)});
        if (!have_type) {
          t = type[e.grid];
          have_type = true;
          type_from = fmt::format("'{}'", p.nodes[e.grid].name);
        } else if (type[e.grid] != t) {
          d.push_back({e.pos, fmt::format("type mismatch: '{}' is {} but '{}' is {} (from {}); one stencil computes in "
                                          "one type",
                                          p.nodes[e.grid].name, to_string(type[e.grid]), n.name, to_string(t), type_from)});
        }
        break;
      case Op::Neg:
      case Op::Sqrt:
      case Op::Abs:
        if (bad_child(e.a)) d.push_back({e.pos, "malformed expression"});
        break;
      default:
        if (bad_child(e.a) || bad_child(e.b)) d.push_back({e.pos, "malformed expression"});
      }
    }
    if (have_type) type[i] = t;
  }
  if (p.stencils().empty()) d.push_back({{}, "the program has no stencil node (write 'name = expression')"});
  return d;
}

Program parse_program(std::string_view text, std::string_view default_name) {
  std::vector<Diagnostic> d;
  Program p = parse_program(text, d, default_name);
  if (!d.empty()) throw DagError(std::move(d));
  return p;
}

Program load_program(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read the program file '{}'", path));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string stem = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (auto dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem = stem.substr(0, dot);
  std::vector<Diagnostic> d;
  Program p = parse_program(ss.str(), d, stem);
  if (!d.empty()) {
    std::string msg;
    for (const auto& x : d)
      msg += std::string(msg.empty() ? "" : "\n") +
             (x.pos.line > 0 ? fmt::format("{}:{}:{}: {}", path, x.pos.line, x.pos.column, x.message)
                             : fmt::format("{}: {}", path, x.message));
    throw InputError(msg);
  }
  return p;
}

// ---- Printer ---------------------------------------------------------------------------------------------

namespace {
int precedence(Op op) {
  switch (op) {
  case Op::Add:
  case Op::Sub: return 1;
  case Op::Mul:
  case Op::Div: return 2;
  case Op::Neg: return 3;
  default: return 4;
  }
}
std::string number_text(double v) {
  std::string s = fmt::format("{}", v);
  return s;
}
std::string print_sub(const Program& p, const Node& n, int k) {
  const Expr& e = n.expr[k];
  const auto wrap = [&](int c, bool need) {
    const std::string s = print_sub(p, n, c);
    return need ? "(" + s + ")" : s;
  };
  switch (e.op) {
  case Op::Number: return e.value < 0 ? "(" + number_text(e.value) + ")" : number_text(e.value);
  case Op::Read: {
    const std::string name = e.grid >= 0 && e.grid < static_cast<int>(p.nodes.size()) ? p.nodes[e.grid].name : "?";
    if (e.off == std::array<int, 3>{0, 0, 0}) return name;
    return fmt::format("{}[{},{},{}]", name, e.off[0], e.off[1], e.off[2]);
  }
  case Op::Neg: return "-" + wrap(e.a, precedence(n.expr[e.a].op) < 3);
  case Op::Sqrt: return "sqrt(" + print_sub(p, n, e.a) + ")";
  case Op::Abs: return "abs(" + print_sub(p, n, e.a) + ")";
  case Op::Min: return "min(" + print_sub(p, n, e.a) + ", " + print_sub(p, n, e.b) + ")";
  case Op::Max: return "max(" + print_sub(p, n, e.a) + ", " + print_sub(p, n, e.b) + ")";
  default: {
    const int pr = precedence(e.op);
    const char* sym = e.op == Op::Add ? " + " : e.op == Op::Sub ? " - " : e.op == Op::Mul ? " * " : " / ";
    return wrap(e.a, precedence(n.expr[e.a].op) < pr) + sym + wrap(e.b, precedence(n.expr[e.b].op) <= pr);
  }
  }
}
} // namespace

std::string print_expression(const Program& p, const Node& n) {
  return n.expr.empty() ? std::string() : print_sub(p, n, static_cast<int>(n.expr.size()) - 1);
}

std::string print_program(const Program& p) {
  std::string out = fmt::format("program {}\ndomain {} {} {}\n", p.name, p.domain[0], p.domain[1], p.domain[2]);
  for (const Node& n : p.nodes) {
    if (n.is_input)
      out += fmt::format("input {} {}\n", n.name, to_string(n.type));
    else
      out += fmt::format("{}{} = {}\n", n.name, n.type_given ? fmt::format(" : {}", to_string(n.type)) : "",
                         print_expression(p, n));
  }
  return out;
}

// ---- Analysis --------------------------------------------------------------------------------------------

bool NeighbourTensor::at(int dx, int dy, int dz) const {
  if (std::abs(dx) > kMaxRadius || std::abs(dy) > kMaxRadius || std::abs(dz) > kMaxRadius) return false;
  return bits[((dz + kMaxRadius) * kTensorSide + dy + kMaxRadius) * kTensorSide + dx + kMaxRadius] != 0;
}
int NeighbourTensor::count() const { return static_cast<int>(std::count(bits.begin(), bits.end(), 1)); }

std::vector<std::array<int, 3>> StencilInfo::offsets(int grid) const {
  std::vector<std::array<int, 3>> out;
  for (const auto& t : tensors)
    if (t.grid == grid)
      for (int dz = -kMaxRadius; dz <= kMaxRadius; ++dz)
        for (int dy = -kMaxRadius; dy <= kMaxRadius; ++dy)
          for (int dx = -kMaxRadius; dx <= kMaxRadius; ++dx)
            if (t.at(dx, dy, dz)) out.push_back({dx, dy, dz});
  return out;
}

const StencilInfo& Analysis::info(int node) const {
  for (const auto& s : stencils)
    if (s.node == node) return s;
  throw InputError(fmt::format("node {} is not a stencil node", node));
}

std::string Analysis::benchmark_name() const {
  int inputs = 0;
  for (int b : bucket_of) inputs += b < 0;
  return fmt::format("k{}_i{}_e{}", stencils.size(), inputs, edges);
}

Analysis analyse(const Program& p) {
  Analysis a;
  const int n = static_cast<int>(p.nodes.size());
  a.adjacency.assign(n, std::vector<std::uint8_t>(n, 0));
  a.bucket_of.assign(n, -1);
  for (int idx : p.stencils()) {
    const Node& node = p.nodes[idx];
    StencilInfo s;
    s.node = idx;
    std::set<std::tuple<int, int, int, int>> pts;
    for (const Expr& e : node.expr) {
      if (e.op == Op::Read) {
        auto it = std::find(s.reads.begin(), s.reads.end(), e.grid);
        std::size_t slot = it - s.reads.begin();
        if (it == s.reads.end()) {
          s.reads.push_back(e.grid);
          NeighbourTensor t;
          t.grid = e.grid;
          s.tensors.push_back(t);
          if (!p.nodes[e.grid].is_input) s.stencil_producers.push_back(e.grid);
        }
        s.tensors[slot].bits[((e.off[2] + kMaxRadius) * kTensorSide + e.off[1] + kMaxRadius) * kTensorSide + e.off[0] +
                             kMaxRadius] = 1;
        s.radius = std::max({s.radius, std::abs(e.off[0]), std::abs(e.off[1]), std::abs(e.off[2])});
        pts.insert({e.grid, e.off[0], e.off[1], e.off[2]});
      } else if (e.op != Op::Number) {
        ++s.flops;
      }
    }
    s.points_read = static_cast<int>(pts.size());
    for (int g : s.reads) a.adjacency[g][idx] = 1;
    a.edges += static_cast<int>(s.reads.size());
    a.stencils.push_back(std::move(s));
  }
  // Buckets: repeatedly take the stencil nodes of zero in-degree in the S-DAG (paper Fig. 5).
  std::vector<int> indeg(n, 0);
  for (const auto& s : a.stencils) indeg[s.node] = static_cast<int>(s.stencil_producers.size());
  std::vector<bool> done(n, false);
  std::size_t placed = 0;
  while (placed < a.stencils.size()) {
    std::vector<int> bucket;
    for (const auto& s : a.stencils)
      if (!done[s.node] && indeg[s.node] == 0) bucket.push_back(s.node);
    if (bucket.empty()) throw InputError("the program has a cycle"); // validate() refuses these first
    for (int b : bucket) {
      done[b] = true;
      a.bucket_of[b] = static_cast<int>(a.buckets.size());
      for (const auto& s : a.stencils)
        if (std::find(s.stencil_producers.begin(), s.stencil_producers.end(), b) != s.stencil_producers.end())
          --indeg[s.node];
    }
    placed += bucket.size();
    a.buckets.push_back(std::move(bucket));
  }
  return a;
}

std::string format_buckets(const Program& p, const Analysis& a) {
  std::string out = fmt::format("{}: {} stencil nodes, {} inputs, {} edges ({}), domain {}x{}x{}\n", p.name,
                                a.stencils.size(), p.inputs().size(), a.edges, a.benchmark_name(), p.domain[0],
                                p.domain[1], p.domain[2]);
  for (std::size_t b = 0; b < a.buckets.size(); ++b) {
    out += fmt::format("bucket {}:", b);
    for (int node : a.buckets[b]) out += " " + p.nodes[node].name;
    out += "\n";
  }
  out += "stencil nodes:\n";
  for (const auto& s : a.stencils) {
    std::string reads;
    for (const auto& t : s.tensors) reads += fmt::format("{}{}({})", reads.empty() ? "" : ", ", p.nodes[t.grid].name, t.count());
    out += fmt::format("  {:<12} bucket {}  {}  radius {}  {} flops/point  {} points read: {}\n", p.nodes[s.node].name,
                       a.bucket_of[s.node], to_string(p.nodes[s.node].type), s.radius, s.flops, s.points_read, reads);
  }
  std::string outs;
  for (int o : p.outputs()) outs += " " + p.nodes[o].name;
  out += "outputs:" + outs + "\n";
  return out;
}

std::string format_tensors(const Program& p, const Analysis& a) {
  std::string out;
  out += "adjacency matrix (row feeds column):\n";
  std::size_t w = 4;
  for (const auto& n : p.nodes) w = std::max(w, n.name.size() + 1);
  out += std::string(w, ' ');
  for (std::size_t j = 0; j < p.nodes.size(); ++j) out += fmt::format("{:>3}", j);
  out += "\n";
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    out += fmt::format("{:<{}}", fmt::format("{} {}", i, p.nodes[i].name), w);
    for (std::size_t j = 0; j < p.nodes.size(); ++j) out += fmt::format("{:>3}", int(a.adjacency[i][j]));
    out += "\n";
  }
  out += "\nmulti-grid computation tensors (one 7x7x7 neighbour-access tensor per grid read; planes dz=-3..3, "
         "rows dy=-3..3, columns dx=-3..3; planes without a read are left out):\n";
  for (const auto& s : a.stencils) {
    out += fmt::format("{} = concat[{} grids] ({} x 7x7x7)\n", p.nodes[s.node].name, s.tensors.size(), s.tensors.size());
    for (const auto& t : s.tensors) {
      out += fmt::format("  {} ({} points):\n", p.nodes[t.grid].name, t.count());
      for (int dz = -kMaxRadius; dz <= kMaxRadius; ++dz) {
        bool any = false;
        for (int dy = -kMaxRadius; dy <= kMaxRadius; ++dy)
          for (int dx = -kMaxRadius; dx <= kMaxRadius; ++dx) any |= t.at(dx, dy, dz);
        if (!any) continue;
        out += fmt::format("    dz={:+d}:", dz);
        for (int dy = -kMaxRadius; dy <= kMaxRadius; ++dy) {
          out += " ";
          for (int dx = -kMaxRadius; dx <= kMaxRadius; ++dx) out += t.at(dx, dy, dz) ? '1' : '0';
        }
        out += "\n";
      }
    }
  }
  return out;
}

// ---- Producer-consumer fusion ----------------------------------------------------------------------------

namespace {
using Off = std::array<int, 3>;
Off add(Off a, Off b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }

// The (node, offset) values a kernel writing `root` computes, given which nodes are materialised.
std::vector<FusionPlan::Value> kernel_values(const Program& p, const std::vector<bool>& mat, int root) {
  std::set<std::pair<int, Off>> seen;
  std::vector<std::pair<int, Off>> stack{{root, {0, 0, 0}}};
  seen.insert(stack.back());
  while (!stack.empty()) {
    auto [node, off] = stack.back();
    stack.pop_back();
    for (const Expr& e : p.nodes[node].expr)
      if (e.op == Op::Read && !mat[e.grid]) {
        std::pair<int, Off> v{e.grid, add(off, e.off)};
        if (seen.insert(v).second) stack.push_back(v);
      }
  }
  std::vector<FusionPlan::Value> out;
  for (const auto& [node, off] : seen) out.push_back({node, off});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.node < b.node; });
  return out;
}
} // namespace

FusionPlan plan_producer_consumer(const Program& p, int max_recompute) {
  FusionPlan f;
  f.max_recompute = max_recompute;
  const int n = static_cast<int>(p.nodes.size());
  f.materialised.assign(n, true);
  const std::vector<int> outs = p.outputs();
  // Consumers first: try inlining each intermediate; keep it inlined when every kernel that would recompute it
  // needs it at no more than max_recompute offsets in all.
  const std::vector<int> st = p.stencils();
  for (auto it = st.rbegin(); it != st.rend(); ++it) {
    const int node = *it;
    if (std::find(outs.begin(), outs.end(), node) != outs.end()) continue;
    f.materialised[node] = false;
    int uses = 0;
    for (int k : st)
      if (f.materialised[k])
        for (const auto& v : kernel_values(p, f.materialised, k)) uses += v.node == node;
    if (uses > max_recompute) f.materialised[node] = true;
  }
  for (int k : st)
    if (f.materialised[k]) {
      f.kernels.push_back(kernel_values(p, f.materialised, k));
      f.kernel_node.push_back(k);
    }
  return f;
}

std::vector<std::vector<int>> fusion_levels(const Program& p, const FusionPlan& f) {
  std::vector<int> level_of_node(p.nodes.size(), -1); // the level of the kernel writing a node
  std::vector<std::vector<int>> levels;
  for (std::size_t k = 0; k < f.kernels.size(); ++k) {
    int level = 0;
    for (const auto& v : f.kernels[k])
      for (const Expr& e : p.nodes[v.node].expr)
        if (e.op == Op::Read && f.materialised[e.grid] && level_of_node[e.grid] >= 0)
          level = std::max(level, level_of_node[e.grid] + 1);
    level_of_node[f.kernel_node[k]] = level;
    if (static_cast<int>(levels.size()) <= level) levels.resize(level + 1);
    levels[level].push_back(static_cast<int>(k));
  }
  return levels;
}

std::string format_levels(const Program& p, const FusionPlan& f) {
  std::string out;
  for (const auto& level : fusion_levels(p, f)) {
    std::string names;
    for (int k : level) names += (names.empty() ? "" : " + ") + p.nodes[f.kernel_node[k]].name;
    out += (out.empty() ? "" : " | ") + names;
  }
  return out;
}

std::string format_fusion(const Program& p, const FusionPlan& f) {
  std::string out = fmt::format("producer-consumer fusion: {} kernels ({})\n", f.kernels.size(),
                                f.max_recompute >= kNoRecomputeLimit ? std::string("every intermediate inlined: no limit")
                                                           : fmt::format("inline when recomputed at most {} times",
                                                                         f.max_recompute));
  for (std::size_t k = 0; k < f.kernels.size(); ++k) {
    std::map<int, int> count;
    for (const auto& v : f.kernels[k]) ++count[v.node];
    std::string inl;
    for (const auto& [node, c] : count)
      if (node != f.kernel_node[k]) inl += fmt::format("{}{} x{}", inl.empty() ? "" : ", ", p.nodes[node].name, c);
    out += fmt::format("  kernel {} writes {}{}\n", k, p.nodes[f.kernel_node[k]].name,
                       inl.empty() ? "" : " (inlines " + inl + ")");
  }
  return out;
}

// ---- Costs -----------------------------------------------------------------------------------------------

const char* to_string(Strategy s) {
  switch (s) {
  case Strategy::Sequential: return "sequential";
  case Strategy::ProducerConsumer: return "producer-consumer";
  case Strategy::Parallel: return "parallel";
  case Strategy::Graph: return "graph";
  case Strategy::Horizontal: return "horizontal";
  case Strategy::Hybrid: return "hybrid";
  }
  return "?";
}

Strategy parse_strategy(std::string_view s) {
  std::string names;
  for (Strategy x : kStrategies) {
    if (s == to_string(x)) return x;
    names += std::string(to_string(x)) + ", ";
  }
  throw InputError(fmt::format("unknown strategy '{}' ({}auto or all)", s, names));
}

std::vector<int> distinct_recompute_limits(const Program& p) {
  std::vector<int> out;
  std::set<std::vector<bool>> seen;
  for (const int limit : {1, 2, 4, 8, 16, 32})
    if (seen.insert(plan_producer_consumer(p, limit).materialised).second) out.push_back(limit);
  return out;
}

namespace {

// One generated kernel as the cost model sees it: the (grid, offset) values it loads, the grids it writes and the
// FLOPs per point of the values it computes.
struct KernelLoads {
  std::set<std::pair<int, std::array<int, 3>>> loads;
  std::vector<int> writes;
  double flops = 0;
};

// The Cost of a list of kernels over `pts` points (launches left to the strategy): each grid a kernel loads crosses
// memory once and each it writes once; l2_bytes per kernel, grid and z offset read, the tile's rows widened by the y
// extent of the offsets times its 32-byte sectors, widened by one at each side where x offsets reach out.
Cost kernels_cost(const Program& p, const std::vector<KernelLoads>& kernels, double pts) {
  Cost c;
  for (const KernelLoads& k : kernels) {
    c.flops += k.flops * pts;
    std::set<int> grids;
    std::map<std::pair<int, int>, std::array<int, 4>> box; // per (grid, dz): min dx, max dx, min dy, max dy
    for (const auto& [g, o] : k.loads) {
      grids.insert(g);
      auto [it, fresh] = box.insert({{g, o[2]}, {o[0], o[0], o[1], o[1]}});
      auto& b = it->second;
      if (!fresh) b = {std::min(b[0], o[0]), std::max(b[1], o[0]), std::min(b[2], o[1]), std::max(b[3], o[1])};
    }
    for (int g : grids) c.bytes += pts * size_of(p.nodes[g].type);
    for (const auto& [key, b] : box) {
      const double size = static_cast<double>(size_of(p.nodes[key.first].type));
      const double sectors = kTileX * size / 32.0 + (b[0] < 0) + (b[1] > 0); // 32-byte sectors of a tile row
      const double rows = kTileY + (b[3] - b[2]);
      c.l2_bytes += pts * rows * sectors * 32.0 / (kTileX * kTileY);
    }
    for (int w : k.writes) {
      c.bytes += pts * size_of(p.nodes[w].type);
      c.l2_bytes += pts * size_of(p.nodes[w].type);
    }
  }
  return c;
}

// The kernels of producer-consumer plan `f` (materialised grids loaded at the offsets its values read them).
std::vector<KernelLoads> plan_loads(const Program& p, const Analysis& a, const FusionPlan& f) {
  std::vector<KernelLoads> out;
  for (std::size_t k = 0; k < f.kernels.size(); ++k) {
    KernelLoads kl;
    kl.writes = {f.kernel_node[k]};
    for (const auto& v : f.kernels[k]) {
      kl.flops += a.info(v.node).flops;
      for (const Expr& e : p.nodes[v.node].expr)
        if (e.op == Op::Read && f.materialised[e.grid])
          kl.loads.insert({e.grid, {v.off[0] + e.off[0], v.off[1] + e.off[1], v.off[2] + e.off[2]}});
    }
    out.push_back(std::move(kl));
  }
  return out;
}

// One kernel per group of stencil nodes (each its own group for sequential, a bucket for horizontal fusion).
std::vector<KernelLoads> group_loads(const Program& p, const Analysis& a, const std::vector<std::vector<int>>& groups) {
  std::vector<KernelLoads> out;
  for (const auto& group : groups) {
    KernelLoads kl;
    for (int node : group) {
      kl.writes.push_back(node);
      kl.flops += a.info(node).flops;
      for (const Expr& e : p.nodes[node].expr)
        if (e.op == Op::Read) kl.loads.insert({e.grid, e.off});
    }
    out.push_back(std::move(kl));
  }
  return out;
}

double points_of(std::array<int, 3> domain) { return static_cast<double>(domain[0]) * domain[1] * domain[2]; }

} // namespace

Cost producer_consumer_cost(const Program& p, const Analysis& a, std::array<int, 3> domain, int max_recompute) {
  const std::vector<KernelLoads> kernels = plan_loads(p, a, plan_producer_consumer(p, max_recompute));
  Cost c = kernels_cost(p, kernels, points_of(domain));
  c.launches = static_cast<int>(kernels.size());
  return c;
}

std::string recompute_limit_name(int limit) { return limit == kNoRecomputeLimit ? "none" : std::to_string(limit); }

Cost strategy_cost(const Program& p, const Analysis& a, Strategy s, std::array<int, 3> domain, int max_recompute) {
  if (s == Strategy::ProducerConsumer) return producer_consumer_cost(p, a, domain, max_recompute);
  std::vector<KernelLoads> kernels;
  if (s == Strategy::Hybrid) { // one kernel per level of the plan, its kernels' loads shared
    const FusionPlan f = plan_producer_consumer(p, kHybridRecomputeLimit);
    const std::vector<KernelLoads> plan = plan_loads(p, a, f);
    for (const auto& level : fusion_levels(p, f)) {
      KernelLoads kl;
      for (int k : level) {
        kl.loads.insert(plan[k].loads.begin(), plan[k].loads.end());
        kl.writes.push_back(f.kernel_node[k]);
        kl.flops += plan[k].flops;
      }
      kernels.push_back(std::move(kl));
    }
  } else if (s == Strategy::Horizontal) { // one kernel per bucket: a grid its operators read crosses memory once
    kernels = group_loads(p, a, a.buckets);
  } else { // sequential, parallel and graph: each operator's tiles load their own grids
    std::vector<std::vector<int>> groups;
    for (const auto& si : a.stencils) groups.push_back({si.node});
    kernels = group_loads(p, a, groups);
  }
  Cost c = kernels_cost(p, kernels, points_of(domain));
  c.launches = s == Strategy::Parallel ? static_cast<int>(a.buckets.size())
               : s == Strategy::Graph  ? 1
                                       : static_cast<int>(kernels.size());
  return c;
}

} // namespace se::dag
