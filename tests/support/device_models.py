# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Simulated devices under test for the throughput search.

Each model is a callable ``measure(load_pps, duration_s) -> {"offered", "received"}``
that answers at once (nothing sleeps).  ``expected_loss(load)`` is the model's
loss ratio without noise, and ``true_value(loss_ratio)`` the load at which the
model starts to miss a goal of that loss ratio: the value a search should find
within its width.  Used by the unit tests and by benchmarks/search_efficiency.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import random

MAX_LOAD = 14880000.0  # 10GbE line rate at 64-byte frames, packets/s
MIN_LOAD = MAX_LOAD / 1000.0


class DeviceModel:
    """Base class: deterministic loss curve given by ``expected_loss``."""

    name = "base"
    description = ""

    def __init__(self):
        self.calls = []

    def expected_loss(self, load):
        """Loss ratio at ``load`` packets/s, without noise."""
        raise NotImplementedError

    def loss(self, load, duration):
        """Loss ratio of one trial; models with noise override this."""
        return self.expected_loss(load)

    def __call__(self, load, duration):
        self.calls.append((load, duration))
        offered = int(round(load * duration))
        lost = int(round(offered * self.loss(load, duration)))
        lost = min(max(lost, 0), offered)
        return {"offered": offered, "received": offered - lost}

    def true_value(self, loss_ratio, max_load=MAX_LOAD, min_load=MIN_LOAD):
        """Lowest load at which the model misses ``loss_ratio``.

        Returns ``max_load`` when even ``max_load`` meets the goal and 0.0 when
        ``min_load`` already misses it.  The scan is from below, so a dip of
        loss below the capacity counts (the conservative value).
        """
        if self.expected_loss(min_load) > loss_ratio:
            return 0.0
        steps = 20000
        ratio = (max_load / min_load) ** (1.0 / steps)
        lower = min_load
        for index in range(1, steps + 1):
            load = min_load * ratio ** index
            if self.expected_loss(load) > loss_ratio:
                upper = load
                for _dummy in range(60):
                    middle = (lower + upper) / 2.0
                    if self.expected_loss(middle) > loss_ratio:
                        upper = middle
                    else:
                        lower = middle
                return upper
            lower = load
        return max_load

    def transitions(self, loss_ratio, max_load=MAX_LOAD, min_load=MIN_LOAD):
        """Every load at which the model's loss crosses ``loss_ratio`` upwards."""
        found = []
        steps = 20000
        ratio = (max_load / min_load) ** (1.0 / steps)
        previous = min_load
        previous_bad = self.expected_loss(previous) > loss_ratio
        for index in range(1, steps + 1):
            load = min_load * ratio ** index
            bad = self.expected_loss(load) > loss_ratio
            if bad and not previous_bad:
                lower, upper = previous, load
                for _dummy in range(60):
                    middle = (lower + upper) / 2.0
                    if self.expected_loss(middle) > loss_ratio:
                        upper = middle
                    else:
                        lower = middle
                found.append(upper)
            previous, previous_bad = load, bad
        return found


class CleanCliff(DeviceModel):
    """Forwards everything up to its capacity and exactly the capacity above it."""

    name = "clean_cliff"
    description = "no loss up to 4.2 Mpps, forwards 4.2 Mpps above"

    def __init__(self, capacity=4200000.0):
        DeviceModel.__init__(self)
        self.capacity = capacity

    def expected_loss(self, load):
        if load <= self.capacity:
            return 0.0
        return 1.0 - self.capacity / load


class _Knee(DeviceModel):
    """No loss up to a knee; above it, the loss of ``excess_loss(load)``."""

    def __init__(self, knee):
        DeviceModel.__init__(self)
        self.knee = knee

    def expected_loss(self, load):
        return 0.0 if load <= self.knee else self.excess_loss(load)

    def excess_loss(self, load):
        raise NotImplementedError


class GradualLoss(_Knee):
    """Loss starts at a knee and grows: each packet/s above it is half lost."""

    name = "gradual"
    description = "knee at 3.1 Mpps, half of the excess lost"

    def __init__(self, knee=3100000.0, lost_share=0.5):
        _Knee.__init__(self, knee)
        self.lost_share = lost_share

    def excess_loss(self, load):
        return self.lost_share * (load - self.knee) / load


class SoftKnee(_Knee):
    """Loss ratio grows with the square of the overload: no sharp edge."""

    name = "soft_knee"
    description = "knee at 6 Mpps, loss ratio 8 x (overload ratio)^2"

    def __init__(self, knee=6000000.0, factor=8.0):
        _Knee.__init__(self, knee)
        self.factor = factor

    def excess_loss(self, load):
        return min(1.0, self.factor * ((load - self.knee) / self.knee) ** 2)


class NoisyCliff(CleanCliff):
    """A cliff whose capacity wanders from trial to trial (seeded).

    The spread shrinks with the square root of the duration: short trials
    are less reliable than long ones, as on real hardware.
    """

    name = "noisy"
    description = "cliff at 5 Mpps, capacity +-0.15%/sqrt(s) per trial"

    def __init__(self, capacity=5000000.0, spread=0.0015, seed=2024):
        CleanCliff.__init__(self, capacity)
        self.spread = spread
        self.random = random.Random(seed)
        # Three standard deviations of a 10 s trial: how far a true bound may stray.
        self.noise = 3.0 * spread / 10.0 ** 0.5

    def loss(self, load, duration):
        jitter = self.random.gauss(0.0, self.spread / duration ** 0.5)
        capacity = self.capacity * (1.0 + jitter)
        if load <= capacity:
            return 0.0
        return 1.0 - capacity / load


class DipAndReturn(DeviceModel):
    """Loss that is not monotonic in load.

    Overloaded, the device collapses: above its capacity it forwards less
    and less (85 % of the capacity at line rate), so the forwarding rate at
    line rate points below the capacity.  There, from 80 % to 87 % of the
    capacity, it loses 0.2 % of packets; between 87 % and 100 % it loses
    nothing again.  The conservative NDR is the start of that band.
    """

    name = "dip_and_return"
    description = "0.2% loss in a band at 80-87% of 7 Mpps, clean again up to 7 Mpps, collapse above"

    def __init__(self, capacity=7000000.0, band=(0.80, 0.87), band_loss=0.002, max_load=MAX_LOAD):
        DeviceModel.__init__(self)
        self.capacity = capacity
        self.band = (band[0] * capacity, band[1] * capacity)
        self.band_loss = band_loss
        self.max_load = max_load

    def expected_loss(self, load):
        if self.band[0] < load <= self.band[1]:
            return self.band_loss
        if load <= self.capacity:
            return 0.0
        overload = (load - self.capacity) / (self.max_load - self.capacity)
        forwarded = self.capacity * (1.0 - 0.15 * min(overload, 1.0))
        return 1.0 - forwarded / load


class NeverLoses(DeviceModel):
    """Forwards everything up to line rate."""

    name = "never_loses"
    description = "no loss at any load"

    def expected_loss(self, load):
        return 0.0


class AlwaysLoses(DeviceModel):
    """Loses 2 % of packets at any load, even the lowest."""

    name = "always_loses"
    description = "2% loss at any load"

    def __init__(self, loss=0.02):
        DeviceModel.__init__(self)
        self.loss_ratio = loss

    def expected_loss(self, load):
        return self.loss_ratio


class TokenBucket(DeviceModel):
    """A policer: rate R with a bucket of B packets that is full when a trial starts.

    Over a trial of d seconds it passes R * d + B packets, so short trials see a
    higher capacity (R + B / d) than final ones: short trials are optimistic,
    as the virtual lab's OVS meter and real devices with deep buffers are.
    """

    name = "token_bucket"
    description = "policer 6 Mpps with a 0.5 Mpacket bucket: 6.5 Mpps in 1 s trials, 6.05 Mpps in 10 s ones"

    def __init__(self, rate=6000000.0, bucket=500000.0):
        DeviceModel.__init__(self)
        self.rate = rate
        self.bucket = bucket

    def expected_loss(self, load):
        return self.loss(load, 10.0)

    def loss(self, load, duration):
        passed = self.rate * duration + self.bucket
        offered = load * duration
        return 0.0 if offered <= passed else 1.0 - passed / offered


MODELS = (CleanCliff, GradualLoss, SoftKnee, NoisyCliff, DipAndReturn, NeverLoses, AlwaysLoses)
# Models whose loss depends on the trial duration: printed by the benchmark, outside its medians.
EXTRA_MODELS = (TokenBucket,)
