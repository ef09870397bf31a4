// Session 54 probe (issue 21): cuBLAS DGEMM (the vendor's FP64 tensor-core GEMM) held for S seconds under the power
// cap; prints TFLOP/s per window. Usage: dgemm_sustain N SECONDS
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8192;
  double secs = argc > 2 ? atof(argv[2]) : 6;
  size_t bytes = size_t(n) * n * sizeof(double);
  double *a, *b, *c;
  cudaMalloc(&a, bytes); cudaMalloc(&b, bytes); cudaMalloc(&c, bytes);
  std::vector<double> h(size_t(n) * n);
  for (size_t i = 0; i < h.size(); ++i) h[i] = (double)((i * 2654435761u) % 1000) / 1000.0 - 0.5;
  cudaMemcpy(a, h.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(b, h.data(), bytes, cudaMemcpyHostToDevice);
  cublasHandle_t handle; cublasCreate(&handle);
  const double one = 1.0, zero = 0.0;
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  // one call to size a window of ~0.25 s
  cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
  cudaEventRecord(e0);
  cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
  cudaEventRecord(e1); cudaEventSynchronize(e1);
  float ms; cudaEventElapsedTime(&ms, e0, e1);
  int per = std::max(1, int(250.0 / ms));
  double flop = 2.0 * n * double(n) * n * per, total = 0;
  std::vector<double> rates;
  while (total < secs) {
    cudaEventRecord(e0);
    for (int i = 0; i < per; ++i)
      cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1);
    total += ms / 1000.0;
    rates.push_back(flop / (ms / 1000.0) / 1e12);
    printf("%6.2f s  %.1f TFLOP/s\n", total, rates.back());
  }
  std::vector<double> second(rates.begin() + rates.size() / 2, rates.end());
  std::sort(second.begin(), second.end());
  printf("dgemm n=%d: first window %.1f, median of the second half %.1f TFLOP/s (%s)\n", n, rates[0],
         second[second.size() / 2], cudaGetErrorString(cudaGetLastError()));
  return 0;
}
