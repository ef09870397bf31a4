// The WMMA recorder in builds without nvcc: there is nothing to run it on, and the message says why.
#include "core/error.hpp"
#include "kernels/device.hpp"
#include "kernels/fragment_probe/wmma_recording.hpp"

namespace se {

WmmaRecordingReport record_wmma_layouts() { throw InputError("no CUDA device: " + query_device().reason); }

} // namespace se
