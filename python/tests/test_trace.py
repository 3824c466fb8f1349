"""The kernel trace's sorting of kernels into the candidate's own, PyTorch's and neutral ones, and
the names it reads from a candidate. The profiler itself runs only on the GPU (the red team's
c05 cases on the H200)."""

import types

import triton
import triton.language as tl

from adaexplore_worker.trace import candidate_kernel_names, kind_of


@triton.jit
def gemm_relu_kernel(x_ptr, BLOCK: tl.constexpr):
    pass


@triton.autotune(configs=[triton.Config({"BLOCK": 64})], key=[])
@triton.jit
def tuned_kernel(x_ptr, BLOCK: tl.constexpr):
    pass


@triton.jit
def held_kernel(x_ptr, BLOCK: tl.constexpr):
    pass


def test_names_from_triton_functions_wrappers_and_cuda_source() -> None:
    module = types.ModuleType("cand")
    module.a = gemm_relu_kernel
    module.b = tuned_kernel
    module.c = 3

    class Holder:  # A kernel kept only as a class attribute counts too.
        kernel = held_kernel

    module.Holder = Holder
    source = 'src = """__global__ void __launch_bounds__(256) fused_bias(float* y) {}"""\n'
    assert candidate_kernel_names(module, source) == {"gemm_relu_kernel", "tuned_kernel",
                                                      "held_kernel", "fused_bias"}


def test_names_of_kernels_defined_inside_functions() -> None:
    # Not in the module's globals, so only the source says they exist.
    source = (
        "class ModelNew(nn.Module):\n"
        "    def forward(self, x):\n"
        "        @triton.jit\n"
        "        def gemm_kernel(a_ptr, BLOCK: tl.constexpr):\n"
        "            pass\n"
        "        @triton.autotune(configs=[], key=[])\n"
        "        @jit\n"
        "        @triton.heuristics({})\n"
        "        def tiled(a_ptr):\n"
        "            pass\n"
        "        def helper(): pass\n")
    names = candidate_kernel_names(types.ModuleType("cand"), source)
    assert names == {"gemm_kernel", "tiled"}
    # Their launches count for the candidate although "gemm" looks like a library's kernel.
    assert kind_of("gemm_kernel", names) == "own"


def test_kinds() -> None:
    own = {"gemm_relu_kernel", "fused_bias"}
    # The candidate's own names win, even over a library-looking word in them.
    assert kind_of("gemm_relu_kernel", own) == "own"
    assert kind_of("fused_bias(float*, int)", own) == "own"
    # PyTorch's and its libraries' compute kernels.
    for name in ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>",
                 "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32",
                 "nvjet_tst_128x64_64x8_1x1_v_bz_coopA_NNT",
                 "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false>",
                 "void cunn_SoftMaxForward<4, float, float, float, Epilogue>",
                 "cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128>",
                 "triton_poi_fused_relu_0"):
        assert kind_of(name, own) == "pytorch", name
    # Copies, fills and memsets are neither side's work.
    for name in ("void at::native::elementwise_kernel<128, 2, direct_copy_kernel_cuda>",
                 "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
                 "Memset (Device)"):
        assert kind_of(name, own) == "neutral", name
    # A name nobody recognises counts for the candidate: the check fails open.
    assert kind_of("my_unknown_kernel", set()) == "own"


def test_own_names_claim_only_their_own_kernels() -> None:
    # CUDA C++ kernels as the profiler demangles them: plain, templated, in the candidate's own
    # namespace.
    own = {"relu_kernel", "tiled_gemm"}
    for name in ("relu_kernel(float const*, float*, int)", "relu_kernel",
                 "void relu_kernel<float>(float const*, float*, int)",
                 "void mine::tiled_gemm<64>(float const*, float const*, float*, int)"):
        assert kind_of(name, own) == "own", name
    # An unlaunched decoy named like one of PyTorch's kernels does not make PyTorch's the
    # candidate's: a name claims a kernel only as that kernel's whole name, never in a PyTorch
    # namespace nor inside a template argument.
    decoys = {"vectorized_elementwise_kernel", "softmax_warp_forward", "gemm", "GeluCUDAKernelImpl",
              "sm90_xmma_gemm"}
    for name in ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>",
                 "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false>",
                 "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32",
                 "cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128>"):
        assert kind_of(name, decoys) == "pytorch", name
