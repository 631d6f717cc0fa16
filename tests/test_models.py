"""One model per concept: the appendix page "하드웨어 모델" (book/appendix/models.md) states each model
of the hardware once, and the simulators compute the same models.

Checked here, without a GPU: the page's six sections and their labels; every value the page shows resolves to a
fact of course/facts/models.py and every claim there holds on the records; sims.banks (and sims.warp_tiling) serve
a 128-bit request per half-warp exactly as the page states, which equals Nsight Compute's counters for the layouts
modules 6 and 7 measured; the simulators' ridge point is the recorded peak over the recorded bandwidth; and there is
one occupancy rule (kernels.devices.occupancy), which the calculator of simulation 10 uses and which equals Nsight's
theoretical occupancy for every profiled kernel.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest

from conftest import REPO
from course.facts import models
from kernels import configs, devices, registry
from sims import banks, roofline, warp_tiling

PAGE = REPO / "book" / "appendix" / "models.md"
LABELS = ("models-lds128", "models-wavefronts", "models-stalls", "models-stage-kstep", "models-ridge",
          "models-occupancy")
EVAL = re.compile(r"\{eval\}`([^`]+)`")
WITH_PARTICLE = re.compile(r'f\.p\("(\w+)", "(으로|로|과|와|을|를|은|는|이|가)"\)')
DATA = REPO / "book" / "data"


def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- the page

def test_the_page_states_each_model_once_under_its_label():
    text = page_text()
    positions = [text.find(f"({label})=\n## ") for label in LABELS]
    assert all(p >= 0 for p in positions), f"labels missing: {[l for l, p in zip(LABELS, positions) if p < 0]}"
    assert positions == sorted(positions) and all(text.count(f"({label})=") == 1 for label in LABELS)
    assert "- file: book/appendix/models" in (REPO / "_toc.yml").read_text(encoding="utf-8")


def test_every_value_on_the_page_is_a_fact():
    text = page_text()
    assert "from course.facts.models import f" in text
    for expr in EVAL.findall(text):
        particle = WITH_PARTICLE.fullmatch(expr)
        name = particle.group(1) if particle else expr.removeprefix("f.")
        assert expr.startswith("f.") and name in models.f, f"{{eval}}`{expr}` is not a fact of course.facts.models"


def test_the_pages_claims_hold_on_the_records():
    report = models.f.verify()
    assert report.checked >= 50 and report.ok, "\n".join(report.failures)


def test_the_glossary_names_stage_and_k_step_apart():
    glossary = (REPO / "book" / "appendix" / "glossary.md").read_text(encoding="utf-8")
    assert "| stage, stage ring | 스테이지, 스테이지 링 |" in glossary and "| k-step | k 스텝 |" in glossary
    assert "| half-warp | 반 워프 |" in glossary


def test_configurations_say_stages_not_dan():
    for cfg in (registry.LEVEL5, registry.LEVEL6):
        assert registry.ring_text(cfg) == f"BK {cfg['BK']}, 스테이지 {cfg['STAGES']}개"
    for spec in registry.KERNELS.values():
        text = configs.config_text(spec) + spec.title_ko
        assert not re.search(r"\d단", text), text


# ---------------------------------------------------------------------------- LDS.128: the half-warp model

def half_warp_model(words_by_lane: dict[int, tuple[int, ...]], width_words: int) -> int:
    """The page's statement, written out independently of sims.banks: 128-bit accesses are served per half-warp
    (lanes 0-15, 16-31), 32-bit ones per warp; a pass costs the most distinct words in one bank; passes add up."""
    per_pass = 16 if width_words == 4 else 32
    groups = defaultdict(lambda: defaultdict(set))
    for lane, words in words_by_lane.items():
        for w in words:
            groups[(lane % 32) // per_pass][w % 32].add(w)
    return sum(max(len(ws) for ws in by_bank.values()) for by_bank in groups.values())


def sims_and_page(expression: str, width_bytes: int, **shape) -> list[tuple[int, int]]:
    """(sims.banks, the page's model) for every warp and k of one module-6 access."""
    out = []
    ks = range(4 if width_bytes == 16 else 16)
    for warp in range(8):
        for k in ks:
            req = banks.bank_request(width_bytes=width_bytes, expression=expression, k=k, warp=warp, **shape)
            words = {t.tid: t.words for t in req.threads}
            out.append((req.wavefronts, half_warp_model(words, banks.WIDTH_WORDS[width_bytes])))
    return out


# Module 6's reads and stores; +1 padding only for 32-bit accesses (it breaks the 16-byte alignment LDS.128 needs,
# so the compiler drops LDS.128 there: module 6).
@pytest.mark.parametrize("expression, width_bytes, padding", [
    ("load [ty][k]", 16, 0), ("load [tx][k]", 16, 0),
    *[(e, 4, pad) for e in ("load [k][tx]", "load [ty][k]", "load [tx][k]", "store [ty][tx]") for pad in (0, 1)],
])
def test_sims_banks_is_the_pages_model_for_module_6s_layouts(expression, width_bytes, padding):
    pairs = sims_and_page(expression, width_bytes, rows=16, cols=16, padding=padding, bdx=16, bdy=16)
    assert all(a == b for a, b in pairs), pairs[:4]


def test_the_model_matches_nsight_for_the_layouts_modules_6_and_7_measured():
    profiles = {e["kernel"]: e for e in json.loads((DATA / "profiles.json").read_text(encoding="utf-8"))["kernels"]}
    # Module 6: one LDS.128 of Level 2 (As[ty][k]) and of its column walk (As[tx][k]), back-computed from Nsight.
    for kernel, expression in (("sgemm_tiled", "load [ty][k]"), ("sgemm_tiled_colwalk", "load [tx][k]")):
        model = sum(a for a, _ in sims_and_page(expression, 16, rows=16, cols=16, bdx=16, bdy=16)) / 32
        measured = models.lds128[kernel]["measured"]
        assert abs(model - measured) < 0.05 * measured, (kernel, model, measured)
    # Module 7: Level 3's micro-kernel, two LDS.128 of A (one float4 per half-warp) and two of B (16 float4 per
    # half-warp, the same 256 B in both halves): (2·2 + 2·4) / 4 = 3 per instruction, as Nsight measures.
    a = banks.bank_request(rows=16, cols=64, width_bytes=16, expression="load [ty][k]", k=0)
    b = banks.bank_request(rows=16, cols=64, width_bytes=16, expression="load [k][tx]", k=0)
    measured = profiles[registry.LEVEL_REPRESENTATIVE[3]]["smem_ld_wavefronts_per_instruction"]
    assert (a.wavefronts, b.wavefronts) == (2, 4)
    assert abs((2 * a.wavefronts + 2 * b.wavefronts) / 4 - measured) < 0.05


def test_warp_tiling_uses_the_same_model_and_level_6_conflicts_only_on_b():
    shipped = warp_tiling.warp_tiling()
    for load in warp_tiling.step_loads(shipped, k=3):
        words = {t.tid: t.words for t in load.request.threads}
        assert load.request.wavefronts == half_warp_model(words, 4) == 2 and load.conflict_free
    contiguous = warp_tiling.warp_tiling(layout="contiguous")
    verdict = {(x.operand, x.conflict_free) for x in warp_tiling.step_loads(contiguous)}
    assert verdict == {("A", True), ("B", False)}


def test_the_rejected_whole_warp_model_is_only_an_explicit_choice():
    assert banks.SERVICE == "half-warp" and banks.SERVICES["half-warp"] == {4: 32, 16: 16}
    req = banks.bank_request(width_bytes=16, expression="load [ty][k]", k=0)
    assert [len(p.tids) for p in req.passes] == [16, 16]
    assert banks.bank_request(width_bytes=16, expression="load [ty][k]", k=0, service="warp").wavefronts == 1


# ---------------------------------------------------------------------------- ridge point

def test_the_simulators_ridge_point_is_the_recorded_peak_over_the_recorded_bandwidth():
    bench = json.loads((DATA / "benchmarks.json").read_text(encoding="utf-8"))
    roof = roofline.recorded_device_roof(bench)
    assert roof.ridge_ai == bench["peak_gflops"] / bench["bandwidth_gbs"]
    assert roof.bandwidth_source.startswith("측정")
    assert models.f.ridge == f"{bench['peak_gflops'] / bench['bandwidth_gbs']:.1f}"


# ---------------------------------------------------------------------------- occupancy: one rule

@pytest.mark.parametrize("arch", list(roofline.ARCHS))
def test_the_calculator_is_the_kernels_occupancy_rule(arch):
    limits = roofline.ARCHS[arch].limits
    for threads in (32, 96, 128, 256, 512, 1024):
        for regs in range(16, 256, 7):
            for smem in (0, 100, 2176, 16_384, 49_152, 100_000):
                rule = devices.occupancy(limits, threads, regs, smem)
                if smem > limits.smem_per_block_optin or rule["by"]["registers"] == 0:
                    continue
                sim = roofline.occupancy(threads, regs, smem, arch)
                assert sim.blocks_per_sm == rule["blocks_per_sm"], (arch, threads, regs, smem)


def test_the_calculator_calls_the_rule(monkeypatch):
    """No second copy of the rule inside sims.roofline: replacing the rule changes the calculator."""
    calls = []
    real = devices.occupancy

    def spy(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(devices, "occupancy", spy)
    roofline.occupancy(256, 128, 8192, "sm_90")
    assert calls and calls[0][0] is devices.PROFILES["H100"]


def test_the_rule_equals_nsights_theoretical_occupancy_for_every_profiled_kernel():
    record = json.loads((DATA / "profiles.json").read_text(encoding="utf-8"))
    for entry in record["kernels"] + record["reference"]:
        assert models.rule_occupancy_pct(entry) == entry["theoretical_occupancy_pct"], entry["kernel"]


def test_every_stall_reason_a_chapter_names_has_a_row_on_the_page():
    """A chapter that reads a stall reason from the records uses the page's meaning of it: so each reason the
    records hold and a chapter (book/m*.md) or bank names has a row in the page's stall table."""
    reasons = set()
    for name in ("profiles.json", "level7_profiles.json"):
        record = json.loads((DATA / name).read_text(encoding="utf-8"))
        for kernel in record.get("kernels", record.get("profiles", [])):
            reasons |= set(kernel.get("stalls", {}))
    assert {"Long Scoreboard", "No Instruction", "Dispatch Stall"} <= reasons
    texts = [path.read_text(encoding="utf-8") for pattern in ("book/m*.md", "course/quiz/banks/m*.yaml")
             for path in sorted(REPO.glob(pattern))]
    named = {reason for reason in reasons if any(reason in text for text in texts)}
    section = page_text().split("(models-stalls)=", 1)[1].split("\n(models-", 1)[0]
    rows = {line.split("|")[1].strip() for line in section.splitlines() if line.startswith("| ")}
    assert "No Instruction" in named
    assert named - {"Selected"} <= rows, sorted(named - rows)
