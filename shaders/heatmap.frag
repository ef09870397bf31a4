// Heat map pass: grid values (R32F, one texel per point) mapped through a colormap LUT.
// NaN and Inf (an unstable stencil blowing up) get their own colour instead of a clamped end of the map.
#version 330 core
in vec2 uv;
out vec4 color;
uniform sampler2D values;   // R32F, x along u, y along v
uniform sampler2D colormap; // RGBA8, 256 x 1
uniform float value_min;
uniform float value_max;
uniform vec3 not_finite_color;

void main() {
    ivec2 size = textureSize(values, 0);
    ivec2 texel = clamp(ivec2(uv * vec2(size)), ivec2(0), size - 1);
    float v = texelFetch(values, texel, 0).r;
    if (isnan(v) || isinf(v)) {
        color = vec4(not_finite_color, 1.0);
        return;
    }
    float span = value_max - value_min;
    float t = span > 0.0 ? clamp((v - value_min) / span, 0.0, 1.0) : 0.5;
    // Sample texel centres so t = 0 and t = 1 hit the first and last LUT entries exactly.
    float lut_width = float(textureSize(colormap, 0).x);
    color = vec4(texture(colormap, vec2((t * (lut_width - 1.0) + 0.5) / lut_width, 0.5)).rgb, 1.0);
}
