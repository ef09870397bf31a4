// Heat map pass: one triangle that covers the target; uv runs 0..1 over the grid slice.
#version 330 core
out vec2 uv;
void main() {
    // Vertices (-1,-1), (3,-1), (-1,3): no vertex buffer needed, only an empty VAO.
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    uv = p;
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
