// Probe (session 46): device-to-device copy bandwidth over bursts of 10 ms to 2 s, after an idle second each,
// to compare the suite's copy roof (five 2 GiB copies, ~5 ms) with kernels timed for a whole second.
#include <cstdio>
#include <unistd.h>
#include <cuda_runtime.h>
__global__ void copy_kernel(const int4* __restrict__ s, int4* __restrict__ d, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) d[i] = s[i];
}
int main() {
  const size_t bytes = size_t(2) << 30;
  int4 *a, *b; cudaMalloc(&a, bytes); cudaMalloc(&b, bytes); cudaMemset(a, 0x5a, bytes); cudaMemset(b, 0, bytes);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int warm = 0; warm < 5; ++warm) cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
  cudaDeviceSynchronize();
  const double durations[] = {0.005, 0.02, 0.1, 0.3, 1.0, 2.0};
  for (int round = 0; round < 2; ++round)
    for (int kind = 0; kind < 2; ++kind)
      for (double d : durations) {
        const int n = d / 1.0e-3 < 1 ? 1 : (int)(d / 1.0e-3); // ~1 ms per 2 GiB copy
        usleep(300000);
        cudaEventRecord(e0);
        for (int i = 0; i < n; ++i) {
          if (kind == 0) cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice);
          else copy_kernel<<<sms * 8, 256>>>(a, b, (long long)(bytes / sizeof(int4)));
        }
        cudaEventRecord(e1); cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1);
        std::printf("round %d %s %5.3f s: %d copies %.4f s %.1f GB/s\n", round, kind ? "kernel" : "memcpy", d, n, ms / 1e3,
                    2.0 * bytes * n / (ms / 1e3) / 1e9);
      }
  return 0;
}
