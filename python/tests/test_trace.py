"""The kernel trace's sorting of kernels into the candidate's own, PyTorch's and neutral ones
(the own names come from the launch hooks: test_launches.py). The profiler itself runs only on
the GPU (the red team's c05 cases on the H200)."""

from adaexplore_worker.evaluation.trace import Window, escaped_work, kind_of, launch_shape


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


def _event(name: str, ts: float, dur: float, correlation: int, cat: str = "kernel",
           stream: int = 7) -> dict:
    return {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur,
            "args": {"correlation": correlation, "stream": stream}}


MARKER = "void at::cuda::(anonymous namespace)::spin_kernel(long)"


def test_work_past_the_marker_escaped_the_callers_stream() -> None:
    # The head start, then on the caller's stream a copy and the marker right after it. A side
    # stream's kernel launched during the call still runs 40 us past the marker.
    work = [_event(MARKER, -500.0, 500.0, 1), _event("copy", 0.0, 11.0, 10, "gpu_memcpy"),
            _event("side_gemm", 1.0, 50.0, 11, stream=9), _event(MARKER, 11.0, 0.5, 12)]
    assert escaped_work(work) == Window(held=True, escaped_us=40.0, escaped_kernels=1,
                                        busy_us=11.0)
    assert all("spin_kernel" not in e["name"] for e in work)  # Neither spin is the call's.


def test_work_that_never_waited_for_the_callers_stream_escaped_too() -> None:
    # A side stream that did not wait: its kernel ran during the head start (as it would under
    # the timed runs' L2 flush), 40 of its 50 us before the call's window opened.
    work = [_event(MARKER, -500.0, 500.0, 1), _event("side_gemm", -40.0, 50.0, 11, stream=9),
            _event("copy", 0.0, 12.0, 12, "gpu_memcpy"), _event(MARKER, 12.0, 0.5, 13)]
    assert escaped_work(work) == Window(held=True, escaped_us=40.0, escaped_kernels=1,
                                        busy_us=12.0)


def test_joined_work_and_the_candidates_own_spin_kernels_are_not_escapes() -> None:
    # A side stream the caller waited for ends before the marker; the candidate's own spin
    # kernel (launched during the call, between the two spins) is the call's work, not a marker.
    work = [_event(MARKER, -500.0, 500.0, 1), _event(MARKER, 0.0, 30.0, 5),
            _event("side_gemm", 1.0, 50.0, 6, stream=9), _event("wait", 51.0, 1.0, 8),
            _event(MARKER, 52.0, 0.5, 9)]
    assert escaped_work(work) == Window(held=True, busy_us=52.0)
    assert [e["args"]["correlation"] for e in work] == [5, 6, 8]


def test_a_join_with_no_work_of_the_callers_own_holds_the_window() -> None:
    # The caller's stream only waits for the side stream: the marker starts as the side
    # kernel ends.
    work = [_event(MARKER, -500.0, 500.0, 1), _event("side_gemm", 1.0, 50.0, 6, stream=9),
            _event(MARKER, 51.5, 0.5, 9)]
    assert escaped_work(work) == Window(held=True, busy_us=50.0)


def test_a_marker_launched_after_the_head_start_ended_proves_nothing() -> None:
    # The host launched the marker 200 us after the head start ended: the side kernel ended
    # before it, but the caller's stream had long been idle.
    work = [_event(MARKER, -500.0, 500.0, 1), _event("side_gemm", 1.0, 50.0, 6, stream=9),
            _event(MARKER, 200.0, 0.5, 9)]
    assert escaped_work(work).held is False


def test_without_both_spins_the_trace_says_nothing_of_escapes() -> None:
    assert escaped_work([_event("side_gemm", 1.0, 50.0, 6)]) == Window(held=None, busy_us=50.0)
    assert escaped_work([_event("side_gemm", 1.0, 50.0, 6), _event(MARKER, 2.0, 0.5, 9)]) == \
        Window(held=None, busy_us=50.0)


def test_the_kernel_time_counts_overlapping_work_once_and_gaps_not_at_all() -> None:
    # Two streams overlap for 10 us; a 20 us gap (the host launching) is no kernel time; the
    # part of a kernel past the marker is an escape, not the call's time.
    work = [_event(MARKER, -500.0, 500.0, 1), _event("a", 0.0, 30.0, 2),
            _event("b", 20.0, 20.0, 3, stream=9), _event("c", 60.0, 10.0, 4),
            _event(MARKER, 70.0, 0.5, 5)]
    assert escaped_work(work) == Window(held=True, busy_us=50.0)


def test_a_launch_shape_is_what_cupti_recorded_and_nothing_it_did_not() -> None:
    # cuBLAS's bf16 8192² GEMM as torch.profiler's trace recorded it on the H200
    # (bench/results/2026-12-04-h200-profiler-probe/trace_args.jsonl).
    gemm = {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 34,
            "registers per thread": 168, "shared memory": 188636, "blocks per SM": 1.0,
            "warps per SM": 12.0, "grid": [2, 66, 1], "block": [384, 1, 1],
            "est. achieved occupancy %": 0}
    assert launch_shape(gemm) == {"registers": 168, "shared_bytes": 188636,
                                  "block_threads": 384, "grid_blocks": 132}
    # A record without those fields (another CUPTI, a memcpy) gives no shape, and a malformed one
    # no field of it.
    assert launch_shape({"correlation": 3}) == {}
    assert launch_shape({"grid": "8,1,1", "block": [], "registers per thread": "many"}) == {}
