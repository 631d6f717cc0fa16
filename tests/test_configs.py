"""Configurations chosen from the device (kernels/configs.py), without a GPU.

Every kernel fits every listed GPU, the figures of `python -m kernels configs --json` agree with the cubins
compiled for each compute capability, the rule keeps the H100's tuned Level 5 and Level 6, the launcher and
compiler follow COURSE_DEVICE_PROFILE, the guard refuses in Korean what does not fit, and the recorded
book/data/device_configs.json is what the code computes today.
"""
from __future__ import annotations

import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

from conftest import REPO
from kernels import compiler, configs, devices, loader, registry, sass
from kernels.errors import DeviceLimitError, KernelInputError
from kernels.launch import Operand, plan

LISTED = ("T4", "RTX3090", "A10G", "L4", "RTX4090", "A100-40GB", "A100-80GB", "H100", "H200")
KEYS = ("kernel", "device", "cc", "smem_bytes", "smem_limit", "registers", "threads", "fits")


@pytest.fixture(scope="module")
def cli_rows():
    """`python -m kernels configs --device all --json`, once (it compiles every file for five architectures)."""
    out = subprocess.run([sys.executable, "-m", "kernels", "configs", "--json"], cwd=REPO, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# ----------------------------------------------------------------------------- the device table

def test_listed_devices_have_the_guides_limits():
    """Per-block opt-in and per-SM shared memory, threads and blocks per SM (CUDA C++ Programming Guide)."""
    expect = {  # cc: (opt-in KiB, per SM KiB, threads/SM, blocks/SM, reserved/block)
        (7, 5): (64, 64, 1024, 16, 0), (8, 0): (163, 164, 2048, 32, 1024), (8, 6): (99, 100, 1536, 16, 1024),
        (8, 9): (99, 100, 1536, 24, 1024), (9, 0): (227, 228, 2048, 32, 1024)}
    assert tuple(devices.PROFILES) == LISTED
    for d in devices.PROFILES.values():
        optin, per_sm, threads, blocks, reserved = expect[d.cc]
        assert (d.smem_per_block_optin, d.smem_per_sm) == (optin * 1024, per_sm * 1024), d.name
        assert (d.max_threads_per_sm, d.max_blocks_per_sm, d.smem_reserved_per_block) == (threads, blocks, reserved)
        assert d.smem_alloc_unit == (256 if d.cc < (8, 0) else 128)
    # The table: Level 5 (66,560 B) and Level 6 (198,656 B) as shipped, against each class.
    assert [devices.profile(n).smem_per_block_optin for n in ("T4", "RTX3090", "A100-40GB", "H100")] == \
        [65_536, 101_376, 166_912, 232_448]


def test_occupancy_rounds_shared_memory_to_the_allocation_unit():
    t4, h100 = devices.profile("T4"), devices.profile("H100")
    # 33,280 B twice would be 66,560 B > 64 KiB: one block. On an H100 with 1 KiB reserved each: 6 blocks by
    # shared memory, but 256 threads with 128 registers leave room for 2.
    assert devices.occupancy(t4, 256, 64, 33_280)["by"]["shared memory"] == 1
    assert devices.occupancy(h100, 256, 128, 33_280) == {"blocks_per_sm": 2, "limiter": "registers",
                                                          "by": {"blocks": 32, "threads": 8, "registers": 2,
                                                                 "shared memory": 6}}
    # 21,888 B rounds to 22,016 B on a T4 (256 B units): 2 blocks, not 2.99 -> 2 either way, but 32,769 B -> 1.
    assert devices.occupancy(t4, 32, 32, 32_769)["by"]["shared memory"] == 1
    assert devices.occupancy(t4, 32, 32, 32_768)["by"]["shared memory"] == 2
    assert devices.occupancy(t4, 256, 32, 70_000)["blocks_per_sm"] == 0


def test_unknown_device_names_get_a_korean_error_listing_the_known_ones():
    with pytest.raises(devices.UnknownDeviceError, match="알 수 없는 GPU 이름") as err:
        devices.profile("GTX 1080")
    assert all(name in str(err.value) for name in LISTED)
    assert devices.profile("a100-40gb").name == "A100-40GB" and devices.profile("rtx 4090").name == "RTX4090"
    out = subprocess.run([sys.executable, "-m", "kernels", "configs", "--device", "V100"], cwd=REPO,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "알려진 이름" in out.stderr and "Traceback" not in out.stderr


# ----------------------------------------------------------------------------- the rule

def test_h100_and_h200_keep_the_tuned_configurations():
    for name in ("H100", "H200"):
        assert configs.choose("level5", devices.profile(name)).config == registry.LEVEL5
        assert configs.choose("level6", devices.profile(name)).config == registry.LEVEL6
        for kernel, shipped in registry.KERNELS.items():
            spec = configs.spec_for(kernel, devices.profile(name))
            if shipped.dispatch:   # Level 7 names its largest form's knobs, which are the file's defaults
                assert (spec.block, spec.tile, spec.dynamic_smem) == (shipped.block, shipped.tile,
                                                                      shipped.dynamic_smem), kernel
                assert dict(spec.config)["BM"] == shipped.tile[0] and spec.defines == (), kernel
                continue
            assert spec == shipped and spec.defines == (), kernel   # same source, so the same SASS


def test_each_class_gets_the_configuration_the_rule_states():
    want = {
        "T4": ({"BK": 8, "STAGES": 2, "EARLY_BARRIER": 0}, {"BK": 8, "STAGES": 3}),
        "RTX3090": ({"BK": 16, "STAGES": 2, "EARLY_BARRIER": 0}, {"BK": 16, "STAGES": 4}),
        "A100-40GB": ({"BK": 32, "STAGES": 2, "EARLY_BARRIER": 0}, {"BK": 32, "STAGES": 3}),
    }
    for name, (l5, l6) in want.items():
        limits = devices.profile(name)
        assert configs.choose("level5", limits).config == l5, name
        assert configs.choose("level6", limits).config == {**registry.LEVEL6, **l6}, name
    classes = sorted(configs.configuration_classes().values())
    assert classes == sorted([["T4"], ["RTX3090", "A10G", "L4", "RTX4090"], ["A100-40GB", "A100-80GB"],
                              ["H100", "H200"]])


def test_the_choice_is_the_first_fitting_candidate_in_the_stated_order():
    """Brute force over the candidates (their shared memory and threads) agrees with choose()."""
    for limits in devices.PROFILES.values():
        for family in registry.FAMILY_DEFAULTS:
            names = [n for n, f in registry.configurable().items() if f == family]
            best = None
            for cfg in configs.candidates(family):
                fits = [configs.fit(registry.configured(n, cfg), limits, configs.Resources(None, 0)) for n in names]
                if all(f.fits for f in fits):
                    key = min(configs.preference(f.spec, f.blocks_per_sm, limits) for f in fits)
                    best = max(best, (key, cfg), key=lambda b: b[0]) if best else (key, cfg)
            assert configs.choose(family, limits).config == best[1], (limits.name, family)


def test_less_shared_memory_gives_up_stages_and_depth_but_keeps_level6s_tiles():
    """What module 11's section says about the table: the tiles stay, the ring shrinks."""
    order = ("H100", "A100-40GB", "RTX3090", "T4")
    rings = []
    for name in order:
        cfg = configs.choose("level6", devices.profile(name)).config
        assert (cfg["BM"], cfg["BN"], cfg["TM"], cfg["TN"]) == (128, 256, 8, 16), name
        rings.append(registry.level6_smem(cfg))
    assert rings == sorted(rings, reverse=True) and len(set(rings)) == len(rings)
    # Without cp.async the fewest stages the loop allows (Level 6 needs 3, Level 5 2).
    t4 = devices.profile("T4")
    assert not t4.has_cp_async
    assert configs.choose("level6", t4).config["STAGES"] == 3 and configs.choose("level5", t4).config["STAGES"] == 2


def test_no_configuration_fits_a_device_too_small_for_any():
    tiny = devices.DeviceLimits("tiny", "tiny GPU", (7, 5), 1, 8 * 1024, 8 * 1024, 0, 1024, 16, 1000.0,
                                smem_alloc_unit=256)
    with pytest.raises(DeviceLimitError, match="level6.*tiny GPU"):
        configs.choose("level6", tiny)


# ----------------------------------------------------------------------------- the CLI against the cubins

def test_every_kernel_fits_every_listed_device(cli_rows):
    assert {r["device"] for r in cli_rows} == set(LISTED)
    assert len(cli_rows) == len(LISTED) * len(registry.KERNELS)
    for r in cli_rows:
        assert all(k in r for k in KEYS)
        assert r["fits"] and r["smem_bytes"] <= r["smem_limit"] and r["blocks_per_sm"] >= 1, r


def test_cli_figures_agree_with_the_compiled_cubins(cli_rows):
    for r in cli_rows:
        limits = devices.profile(r["device"])
        spec = configs.spec_for(r["kernel"], limits)   # the one function that decides, again
        assert dict(spec.config) == r["config"], r
        text = compiler.variant_source(spec.file, dict(spec.defines))
        usage = sass.resource_usage(spec.file, limits.arch, text)[r["kernel"]]   # ptxas, read by cuobjdump
        reserved = sass.SYSTEM_SMEM_BYTES if usage["smem_static"] and limits.cc >= (9, 0) else 0
        assert (r["registers"], r["smem_static"]) == (usage["registers"], usage["smem_static"] - reserved), r
        assert r["smem_static"] == spec.static_smem and r["smem_dynamic"] == spec.dynamic_smem
        assert r["threads"] == spec.threads
        assert r["smem_limit"] == limits.smem_per_block_optin and r["cc"] == limits.cc_text
        occ = devices.occupancy(limits, spec.threads, usage["registers"], r["smem_bytes"])
        assert (r["blocks_per_sm"], r["limiter"]) == (occ["blocks_per_sm"], occ["limiter"])
        assert usage["local_bytes"] == 0, f"{r['kernel']} spills on {limits.arch} in its {r['device']} configuration"


def test_level5_keeps_the_two_blocks_it_is_built_for_everywhere(cli_rows):
    for r in cli_rows:
        if r["kernel"].startswith("sgemm_async_copy"):
            assert r["blocks_per_sm"] >= registry.LEVEL5_MIN_BLOCKS and r["registers"] <= 128, r


def test_recorded_device_configs_are_current(cli_rows):
    sys.path.insert(0, str(REPO / "tools"))
    import record_device_configs as tool

    recorded = tool.load()
    assert recorded is not None, "book/data/device_configs.json is missing: python tools/record_device_configs.py"
    fresh = tool.build()
    assert fresh["rows"] == cli_rows
    assert tool.differences(recorded, fresh) == [], "regenerate: python tools/record_device_configs.py"
    for key in ("command", "date", "git_commit", "compiler"):
        assert recorded.get(key), key
    assert recorded["compiler"]["nvrtc"] and recorded["compiler"]["options"]


# ----------------------------------------------------------------------------- profile, compiler, launcher, guard

def test_profile_sets_the_launch_shape(monkeypatch):
    monkeypatch.setenv("COURSE_DEVICE_PROFILE", "T4")
    spec = configs.spec_for("sgemm_warp_tiling")
    assert spec.tile == (128, 256) and spec.dynamic_smem == registry.level6_smem(dict(spec.config)) == 37_248
    assert dict(spec.defines) == {"L6_BK": 8, "L6_STAGES": 3}
    a = Operand("A", (300, 64), *_f32((300, 64)), 1 << 20, 300 * 64 * 4)
    b = Operand("B", (64, 512), *_f32((64, 512)), 1 << 30, 64 * 512 * 4)
    p = plan(spec, a, b, None)
    assert p.shared_mem == 37_248 and p.grid == (2, 3, 1)
    assert compiler.ptx_target() == "compute_75"
    monkeypatch.setenv("COURSE_DEVICE_PROFILE", "A100-80GB")
    assert compiler.ptx_target() is None
    assert configs.spec_for("sgemm_async_copy").dynamic_smem == 66_560
    monkeypatch.setenv("COURSE_DEVICE_PROFILE", "nope")
    with pytest.raises(devices.UnknownDeviceError):
        configs.spec_for("sgemm_warp_tiling")


def _f32(shape):
    import numpy as np

    return np.dtype(np.float32), (shape[1] * 4, 4)


def test_ptx_for_compute_75_takes_the_fallback_path():
    """Under a pre-sm_80 profile the kernels are PTX for compute_75: no cp.async in it, plain shared stores."""
    text = compiler.variant_source("sgemm_async_copy.cu", {"L5_BK": 8})
    old = compiler.ptx_file("sgemm_async_copy.cu", "compute_75", text).read_text()
    new = compiler.ptx_file("sgemm_async_copy.cu", "compute_80", text).read_text()
    assert ".target sm_75" in old and "cp.async" not in old and "st.shared.v4.f32" in old
    assert ".target sm_80" in new and "cp.async.cg.shared.global" in new
    with pytest.raises(Exception, match="compute_75"):
        compiler.ptx_file("sgemm_async_copy.cu", "sm_75", text)


def _fake_kernel(regs: int, static: int):
    return SimpleNamespace(num_regs=regs, shared_size_bytes=static, max_dynamic_shared_size_bytes=0)


def test_guard_refuses_in_korean_naming_the_kernel_and_the_limit(monkeypatch):
    """An H100 configuration on a T4 (a device nobody profiled for it): refused before any launch."""
    monkeypatch.delenv("COURSE_DEVICE_PROFILE", raising=False)
    monkeypatch.setattr(configs, "current_limits", lambda: devices.profile("T4"))
    h100_l6 = registry.get("sgemm_warp_tiling")
    with pytest.raises(DeviceLimitError) as err:
        loader.guard(_fake_kernel(240, 0), h100_l6)
    message = str(err.value)
    assert isinstance(err.value, KernelInputError)
    assert "sgemm_warp_tiling" in message and "공유 메모리" in message and "198,656" in message
    assert "65,536" in message and "NVIDIA T4" in message and "기록된 결과" in message
    t4_l6 = configs.spec_for("sgemm_warp_tiling", devices.profile("T4"))
    loader.guard(_fake_kernel(209, 0), t4_l6)   # the T4's own configuration passes


def test_guard_checks_the_profile_and_the_real_gpu(monkeypatch):
    """A profile bigger than the machine's GPU: the configuration fits the profile, not the GPU."""
    monkeypatch.setenv("COURSE_DEVICE_PROFILE", "H100")
    monkeypatch.setattr(configs, "current_limits", lambda: devices.profile("RTX3090"))
    with pytest.raises(DeviceLimitError, match="이 GPU GeForce RTX 3090"):
        loader.guard(_fake_kernel(240, 0), configs.spec_for("sgemm_warp_tiling"))
    monkeypatch.setenv("COURSE_DEVICE_PROFILE", "T4")
    monkeypatch.setattr(configs, "current_limits", lambda: devices.profile("H100"))
    wide = registry.configured("sgemm_async_copy_vec", {"BK": 32, "STAGES": 3, "EARLY_BARRIER": 1})
    with pytest.raises(DeviceLimitError, match="COURSE_DEVICE_PROFILE=T4"):
        loader.guard(_fake_kernel(125, 0), wide)
    threads = registry.KernelSpec("x", "", -1, "", "", (2048, 1), (1, 1))
    with pytest.raises(DeviceLimitError, match="스레드"):
        loader.guard(_fake_kernel(32, 0), threads)
    regs = registry.KernelSpec("y", "", -1, "", "", (1024, 1), (1, 1))
    with pytest.raises(DeviceLimitError, match="레지스터"):
        loader.guard(_fake_kernel(128, 0), regs)


def test_configurable_kernels_and_their_defines():
    assert registry.configurable() == {"sgemm_async_copy": "level5", "sgemm_async_copy_vec": "level5",
                                       "sgemm_warp_tiling": "level6"}
    spec = registry.configured("sgemm_async_copy_vec", {"BK": 16})
    assert dict(spec.defines) == {"L5_BK": 16} and spec.dynamic_smem == 33_280 and "BK 16, 스테이지 2개" in spec.title_ko
    assert spec.vec4 == registry.get("sgemm_async_copy_vec").vec4 and spec.awkward_shapes
    with pytest.raises(ValueError):
        registry.configured("sgemm_naive", {"BK": 8})
    with pytest.raises(ValueError):
        registry.config_defines("level6", {"BX": 1})


# ----------------------------------------------------------------------------- the disk cache of compile_cubin

def test_compile_cubin_is_kept_on_disk_by_text_arch_and_compiler(monkeypatch, tmp_path):
    monkeypatch.setenv(compiler.CACHE_ENV, str(tmp_path))
    text = compiler.expanded_source("sgemm_naive.cu") + "\n// cache test\n"
    first = compiler.compile_cubin("sgemm_naive.cu", "sm_80", text)
    assert len(list(tmp_path.glob("*.cubin"))) == 1
    compiler.compile_cubin.cache_clear()

    def no_compiler(*args):
        raise AssertionError("compiled again although the cubin is on disk")

    monkeypatch.setattr(compiler, "_nvrtc_compile", no_compiler)
    assert compiler.compile_cubin("sgemm_naive.cu", "sm_80", text) == first
    compiler.compile_cubin.cache_clear()
    with pytest.raises(AssertionError, match="compiled again"):     # another architecture is another file
        compiler.compile_cubin("sgemm_naive.cu", "sm_86", text)
    with pytest.raises(AssertionError, match="compiled again"):     # another text too
        compiler.compile_cubin("sgemm_naive.cu", "sm_80", text + "// changed\n")
    monkeypatch.setattr(compiler, "_compiler_identity", lambda: "another NVRTC")
    with pytest.raises(AssertionError, match="compiled again"):     # and another compiler
        compiler.compile_cubin("sgemm_naive.cu", "sm_80", text)
    compiler.compile_cubin.cache_clear()


def test_disk_cache_can_be_turned_off(monkeypatch):
    monkeypatch.setenv(compiler.CACHE_ENV, "off")
    assert compiler.cache_dir() is None
    monkeypatch.setenv(compiler.CACHE_ENV, "")
    assert compiler.cache_dir() is not None


# ----------------------------------------------------------------------------- module 11's table and labels

def test_device_class_table_and_profile_labels(tmp_path, monkeypatch):
    """One row per configuration class; timings of a profile are labelled as the recording GPU's."""
    from course import page

    shown = []
    monkeypatch.setattr(page, "table", lambda rows, columns, caption="": shown.append((rows, caption)))
    monkeypatch.setattr(page, "note", lambda text, kind="note": shown.append((text, kind)))
    data = json.loads((REPO / "book" / "data" / "device_configs.json").read_text(encoding="utf-8"))
    rows = page.device_class_rows(data)
    assert len(rows) == 4 and "NVIDIA T4" in rows[0]["gpus"] and rows[0]["copy"] == "동기 복사 폴백"
    assert rows[0]["limit"] == "64 KiB" and rows[-1]["limit"] == "227 KiB"
    assert rows[0]["l5"].startswith("BK 8, 스테이지 2개 (16.2 KiB")
    timed = {"device": "NVIDIA H100 80GB HBM3", "date": "2026-11-26T00:00:00Z", "command": "python x",
             "profiles": [{"profile": "T4", "label_ko": "T4의 구성을 NVIDIA H100 80GB HBM3에서 잰 값",
                           "rows": [{"kernel": "cublas", "M": 1024, "N": 1024, "K": 1024, "median_ms": 0.1},
                                    {"kernel": "sgemm_warp_tiling", "config_text": "128×256 블록, BK 8, 스테이지 3개",
                                     "M": 1024, "N": 1024, "K": 1024, "median_ms": 0.2, "pct_cublas": 50.0}]}]}
    profiles = tmp_path / "device_profiles.json"
    profiles.write_text(json.dumps(timed), encoding="utf-8")
    page.show_device_configs(profiles_path=profiles)
    texts = " ".join(str(item[0]) for item in shown)
    assert "T4의 구성" in texts and "T4의 속도가 아니라" in texts
    assert [r["kernel"] for r in page.profile_rows(timed)] == ["sgemm_warp_tiling"]


def test_live_results_name_the_gpu_the_configuration_and_keep_ratios_apart():
    from course.page import Results

    live = Results([{"kernel": "sgemm_warp_tiling", "config_text": "128×256 블록, BK 16, 스테이지 4개"}], True,
                   {"device": "GeForce RTX 3090", "cupy": "14", "cuda_runtime": "12.9", "date": "d"})
    label = live.label()
    assert "GeForce RTX 3090" in label and "BK 16, 스테이지 4개" in label and "섞지 마세요" in label
    profiled = Results([], True, {"device": "NVIDIA H100", "label_ko": "T4의 구성을 NVIDIA H100에서 잰 값"})
    assert "T4의 구성을 NVIDIA H100에서 잰 값" in profiled.label()


def test_recorded_device_profiles_are_labelled_when_present():
    path = REPO / "book" / "data" / "device_profiles.json"
    if not path.exists():
        pytest.skip("device_profiles.json is recorded on a GPU by tools/gpu/check_device_profiles.sh")
    data = json.loads(path.read_text(encoding="utf-8"))
    for key in ("device", "date", "command", "git_commit", "driver", "cuda_runtime"):
        assert data.get(key), key
    assert "device_profile" not in data, "the run itself is under no profile"
    for entry in data["profiles"]:
        assert entry["label"].startswith(f"configuration of device {entry['profile']} timed on an {data['device']}")
        assert all(r["rel_error"] < 1e-5 for r in entry["rows"] if r["kernel"] != "cublas")


def test_book_records_are_not_overwritten_under_a_profile(monkeypatch, tmp_path):
    from kernels import record

    monkeypatch.setenv("COURSE_DEVICE_PROFILE", "T4")
    with pytest.raises(KernelInputError, match="COURSE_DEVICE_PROFILE=T4.*benchmarks.json"):
        record.guard_book_record(record.BENCH_FILE)
    record.guard_book_record(record.DATA_DIR / "device_profiles.json")   # the profiles' own record
    record.guard_book_record(tmp_path / "benchmarks.json")                 # anything outside book/data
    out = subprocess.run([sys.executable, "-m", "kernels", "record"], cwd=REPO, capture_output=True, text=True,
                         timeout=120, env={**__import__("os").environ, "COURSE_DEVICE_PROFILE": "T4"})
    assert out.returncode == 2 and "record_device_profiles.py" in out.stderr
    monkeypatch.delenv("COURSE_DEVICE_PROFILE")
    record.guard_book_record(record.BENCH_FILE)
