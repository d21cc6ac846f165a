"""bench/generator.py: the counting window closes once two reads agree, or at the limit."""
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.generator import quiet_value


class Clock:
    def __init__(self):
        self.now = 0.0
        self.slept = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


def test_the_count_is_taken_once_two_reads_agree():
    clock, reads = Clock(), iter([100, 180, 200, 200, 999])
    assert quiet_value(lambda: next(reads), clock.sleep, clock, 0.1, 5.0) == 200
    assert clock.slept == [0.1, 0.1, 0.1]


def test_a_count_that_keeps_growing_is_taken_at_the_limit():
    clock = Clock()
    counts = iter(range(0, 10 ** 6, 7))
    value = quiet_value(lambda: next(counts), clock.sleep, clock, 0.1, 0.35)
    assert len(clock.slept) == 4 and value == 28
