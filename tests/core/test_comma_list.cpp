#include <catch2/catch.hpp>

#include "core/common/comma_list.hpp"
#include "core/error.hpp"
#include "tests/core/message_of.hpp"

using se::split_comma_list;
using se::testing::message_of;

TEST_CASE("split_comma_list: items in order, empty text gives none", "[cli][comma_list]") {
  CHECK(split_comma_list("", "--methods").empty());
  CHECK(split_comma_list("heat-2d", "--stencils") == std::vector<std::string>{"heat-2d"});
  CHECK(split_comma_list("b,a,b", "--strategy") == std::vector<std::string>{"b", "a", "b"});
  CHECK(split_comma_list(" x ,y", "--print") == std::vector<std::string>{" x ", "y"}); // no trimming
}

TEST_CASE("split_comma_list: an empty item is refused, naming the option and the text", "[cli][comma_list]") {
  for (const char* text : {",", ",a", "a,", "a,,b", ",,"}) {
    CAPTURE(text);
    CHECK_THROWS_AS(split_comma_list(text, "--sizes"), se::InputError);
    const std::string m = message_of([&] { split_comma_list(text, "--sizes"); });
    CHECK(m.find("--sizes") != std::string::npos);
    CHECK(m.find(std::string("'") + text + "'") != std::string::npos);
    CHECK(m.find("empty item") != std::string::npos);
  }
}
