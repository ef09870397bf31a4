// TMA tensor maps (Hopper's bulk tensor copies), encoded through the CUDA runtime's driver entry point so that
// nothing links against libcuda: on a machine without a driver, or a GPU before sm_90, encoding reports false and
// the caller keeps its cp.async path.
#pragma once
#include <cstdint>

namespace se {

// Whether this process may take a TMA path on the current device: sm_90 or newer, and a driver with the tensor-map
// encoder (false without a driver).
bool tma_supported();

// A kernel's TMA switch: true unless the environment variable `name` is 0 (the tests run both paths on one GPU).
bool tma_wanted(const char* name);

// A tiled tensor map of `rank` (1..3) dimensions over `base`: dims[] elements per axis (x first), byte strides of
// axes 1.. in strides[] (multiples of 16), box[] elements per axis (each at most 256, box[0] * elem_bytes a
// multiple of 16). Elements outside dims arrive as zeros. elem_bytes is 2, 4 or 8. `map` points at a CUtensorMap
// (64-byte aligned, 128 bytes). False unless tma_supported().
bool encode_tensor_map(void* map, const void* base, int elem_bytes, int rank, const std::uint64_t* dims,
                       const std::uint64_t* strides, const std::uint32_t* box);

} // namespace se
