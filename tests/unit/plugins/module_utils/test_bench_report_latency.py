"""bench_report_latency: the histogram range of the 99th percentile, and the latency table that shows it."""
from ansible_collections.offload.testbed.plugins.module_utils.bench.report import latency


def test_bucket_ranges_have_one_significant_digit():
    assert [latency.bucket_range(key) for key in (0, 2, 10, 20, 90, 100, 900, 2000, 10000)] == [
        (0, 10), (0, 10), (10, 20), (20, 30), (90, 100), (100, 200), (900, 1000), (2000, 3000), (10000, 20000)]


def test_the_99th_percentile_is_in_the_range_of_the_ceil_rank():
    # 1000 frames: the 990th. 980 in 10-19 us, 15 in 100-199 us (the 981st to the 995th): 100 to 200
    assert latency.percentile_range({"10": 980, "100": 15, "2000": 5}, 99.0) == (100, 200)
    # 990 in 10-19 us: the 990th is the last of them
    assert latency.percentile_range({"10": 990, "2000": 10}, 99.0) == (10, 20)
    # empty ranges do not count, keys need not be sorted
    assert latency.percentile_range({"5000": 3, "0": 0, "60": 97}, 99.0) == (5000, 6000)
    assert latency.percentile_range({}, 99.0) is None and latency.percentile_range(None, 99.0) is None


def test_the_table_names_the_histogram():
    point = {"fraction": 0.1, "load": 5251.2, "reference_goal": "pdr", "min_us": 80.0, "avg_us": 1262.6, "max_us": 16778.8,
             "percentiles_us": {"99": 20000.0}, "histogram": {"80": 1, "1000": 900, "10000": 99}, "latency_received": 1000,
             "latency_sent": 1000}
    header, lines = latency.latency_table([(("netdev", "routing", "udp", 64), [point])])
    assert header[8:10] == ["p99 us (histogram)", "p99 range us"]
    # 1000 frames, the 990th: 1 + 900 are below 10000, the 99 of 10000-19999 hold it
    assert lines == [["netdev", "routing", "udp", "64 B", "5.3 kpps (10% of pdr)", "80", "1263", "16779", "20000", "10000 to 20000", "1000 / 1000"]]
    assert "read from TRex's latency histogram" in latency.NOTE
