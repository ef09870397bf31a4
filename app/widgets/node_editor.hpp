// A small node editor drawn on ImDrawList (no node-editor library is packaged for us): boxes with a coloured
// title bar that are dragged by the title, an output pin on the right of every node, an input pin on the left
// of nodes that take inputs, links drawn as curves from an output pin to an input pin, a new link made by
// dragging from an output pin to an input pin, and the canvas panned by dragging its background.
//
// The caller owns the nodes; each frame:
//   NodeEditor::Frame f = editor.begin("id", size, nodes, links);   // links, frames, titles, pins
//   ... f.enter(i), then widgets of its own inside node i's body (f.body_min(i), width f.body_width) ...
//   editor.end(f);                                                  // background panning, the pending link
// and reads the events in `f` after end(): a node moved, a drag finished, a link requested.
#pragma once
#include <string>
#include <vector>

#include <imgui.h>

namespace se {

struct NodeEditorNode {
  std::string title;
  std::string detail;       // a second, dimmer line in the title bar ("" for none)
  ImU32 header = IM_COL32(80, 80, 90, 255);
  ImVec2 pos{0, 0};         // canvas coordinates of the top-left corner at zoom 1 (moved by dragging the title)
  float body_height = 0;    // room under the title for the caller's widgets, at zoom 1
  float width = 0;          // at zoom 1; 0: the editor's node width (a title-only node may be narrower)
  bool input_pin = false;   // a pin on the left that output pins connect to
  bool error = false;       // outlined in red
  bool selected = false;    // outlined in white
};

struct NodeEditorLink {
  int from = -1, to = -1;   // node indices: from's output pin to to's input pin
  ImU32 color = IM_COL32(200, 200, 210, 200);
};

class NodeEditor {
public:
  struct Frame {
    // Geometry in screen coordinates, per node (filled by begin()).
    std::vector<ImVec2> node_min, node_max, out_pin, in_pin;
    std::vector<float> title_height; // one line, or two with a detail
    float body_width = 0, pin_radius = 0;
    ImVec2 body_min(int i) const { return ImVec2(node_min[i].x + pad, node_min[i].y + title_height[i] + pad); }
    ImVec2 canvas_min{0, 0}, canvas_max{0, 0};
    float pad = 0;
    // Events of this frame.
    int clicked = -1;            // a node's title was clicked (selection)
    int moving = -1;             // a node is being dragged
    bool move_finished = false;  // a node drag ended this frame (it moved)
    int link_from = -1, link_to = -1; // an output pin was dragged onto an input pin
    // Draw into node i's layer (call before the caller's widgets in its body): a node drawn later covers the
    // ones before it, with the selected node and nodes with errors on top.
    void enter(int i) const { splitter->SetCurrentChannel(ImGui::GetWindowDrawList(), layer[i]); }
    std::vector<int> layer;
    ImDrawListSplitter* splitter = nullptr;
    // Internal: the links and nodes of this frame.
    const std::vector<NodeEditorLink>* links = nullptr;
    std::vector<NodeEditorNode>* nodes = nullptr;
  };

  // Opens a child window of `size` and draws links, node frames, titles and pins. Node i is moved in
  // `nodes[i].pos` while its title is dragged. `node_width` is at zoom 1 (the width of nodes without their own);
  // inside the child the font is scaled by the zoom, so the caller's widgets in the bodies scale with the nodes.
  Frame begin(const char* id, ImVec2 size, std::vector<NodeEditorNode>& nodes, const std::vector<NodeEditorLink>& links,
              float node_width);
  // Panning by the background and the link being dragged; closes the child window.
  void end(Frame& f);

  ImVec2 scroll{0, 0};      // canvas offset (panning), in screen pixels
  float zoom = 1;           // node sizes and positions are drawn times this (the mouse wheel over the canvas zooms)
  bool fit_pending = false; // set: the next begin() chooses zoom and scroll so every node is inside the canvas
  int dragging_pin = -1;    // node whose output pin is being dragged

private:
  bool moved_ = false;
  ImDrawListSplitter splitter_;
};

} // namespace se
