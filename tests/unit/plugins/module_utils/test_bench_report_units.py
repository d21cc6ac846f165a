"""bench_units: rates in frames/s, Gbps at the frame size, share of line rate; the values worked out by hand."""
import pytest

from ansible_collections.offload.testbed.plugins.module_utils.bench import units


def test_gbps_on_the_wire_counts_preamble_and_gap():
    # 64 B frame + 8 B preamble and delimiter + 12 B gap = 84 B = 672 bits; 14,880,952 x 672 = 9,999,999,744 bits/s
    assert units.gbps_l1(14880952, 64) == pytest.approx(9.999999744)
    # 1518 B: 1538 B = 12,304 bits; 1,000,000 frames/s = 12.304 Gb/s
    assert units.gbps_l1(1e6, 1518) == pytest.approx(12.304)
    assert units.gbps_l1(None, 64) is None


def test_gbps_of_the_frames_alone():
    # 1,000,000 x 64 B x 8 = 512,000,000 bits/s
    assert units.gbps_l2(1e6, 64) == pytest.approx(0.512)
    assert units.gbps_l2(None, 64) is None


def test_line_rate_and_share():
    # 25 Gb/s / 672 bits = 37,202,380.95 frames/s of 64 B
    assert units.line_rate_pps(25, 64) == pytest.approx(37202380.952, rel=1e-9)
    assert units.line_rate_pps(None, 64) is None and units.line_rate_pps(0, 64) is None
    # 1 Mpps of 64 B on a 10 Gb/s port: 672 Mb/s of 10,000 Mb/s = 6.72 %
    assert units.line_share(1e6, 64, 10) == pytest.approx(0.0672)
    assert units.line_share(1e6, 64, None) is None and units.line_share(None, 64, 10) is None


def test_texts():
    assert [units.pps_text(value) for value in (14880952, 46600, 300, None)] == ["14.88 Mpps", "46.6 kpps", "300 pps", "-"]
    assert [units.gbps_text(value) for value in (9.5238, 0.0312, 0.0005, None)] == ["9.52 Gbps", "0.031 Gbps", "0.0005 Gbps", "-"]
    assert [units.share_text(value) for value in (0.42, None)] == ["42.0 %", "-"]


def test_a_range_in_one_unit_names_it_once():
    assert units.pps_range_text(20200, 45100) == "20.2 to 45.1 kpps"
    assert units.pps_range_text(800000, 1.2e6) == "800.0 kpps to 1.20 Mpps"
    assert units.pps_range_text(None, 1.0) == "-"
