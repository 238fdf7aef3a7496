"""The serving process's own settings: what `council serve` changes in the interpreter at start-up."""

from __future__ import annotations

import gc
import weakref

from council.server.listen import GC_YOUNG_THRESHOLD, tune_garbage_collector


class Node:
    self: Node


def test_start_up_objects_are_frozen_and_young_collections_are_rarer():
    before = gc.get_threshold()
    try:
        tune_garbage_collector()
        assert gc.get_freeze_count() > 1000  # modules, schemas and config built so far
        assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, *before[1:])
        cycle = Node()
        cycle.self = cycle
        alive = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert alive() is None  # a cycle made after start-up is still collected
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
