"""rw31/h P5 and P7 (hostile-input review of e19f1dc).

P5: a file over its time budget was a PD008 *warning* ("it holds no launch text pdlint knows") when its own text
had no launcher marker, even when its launches live in the templates it includes or the scripts it sources; and
the pair stage compared every one of ~2000 identical foreground launches with every earlier one (> 10 s).
P7: the Jinja filter registration scan (PD016) walked nested ``def filters`` bodies once per nesting level.
"""

import pytest


def test_identical_launches_that_never_share_the_host_are_compared_with_the_first_ones_only(monkeypatch):
    """rw31/h P5: an include fan-out renders one foreground launch 2000 times; none shares the host with another
    (the script waits for each: pairing.one_after_the_other), so no pair was ever taken and each launch was
    compared with every earlier one (2000 x 2000 / 2 predicate calls, > 10 s: PD008 "exceeded 10 s in pair
    stage").  Each is now compared with the first MAX_EXAMINED launches of its group of identical launches."""
    from pdlint import pair_rules
    from pdlint.model import Launch
    from pdlint.pairing import Deployment

    class Parsed:
        incomplete = False

    calls = []

    def foreground(a, b):
        calls.append((a, b))
        return True  # the first one runs in the foreground: never on the host together

    monkeypatch.setattr(pair_rules, "one_after_the_other", foreground)
    n = 300
    ls = [Launch(path="r.sh", line=i + 1, engine="none", entrypoint="x", kind="server", command=[], argv=[])
          for i in range(n)]
    for l in ls:
        l.parsed = Parsed()
    assert pair_rules._colocated_pairs(Deployment("r.sh", "one file", ls)) == []
    assert len(calls) <= n * 2 * pair_rules.MAX_PARTNERS  # 44,850 before
    assert (ls[0], ls[1]) in calls and (ls[0], ls[299]) in calls and (ls[40], ls[299]) not in calls


def test_colocated_pairs_of_distinct_groups_keep_their_order_and_partners():
    """The quiet neighbour: launches of two groups (two commands repeated) still pair with the earlier launches of
    each group, in the script's order, up to MAX_PARTNERS per group."""
    from pdlint import pair_rules
    from pdlint.model import Launch
    from pdlint.pairing import Deployment

    class Parsed:
        incomplete = False

    ls = [Launch(path="r.sh", line=i + 1, engine="none", entrypoint="x" if i % 2 else "y", kind="server",
                 command=[], argv=[]) for i in range(60)]
    for l in ls:
        l.parsed = Parsed()
    pairs = pair_rules._colocated_pairs(Deployment("r.sh", "one file", ls))
    partners = [a for a, b in pairs if b is ls[59]]
    assert len(partners) == 2 * pair_rules.MAX_PARTNERS
    assert partners == sorted(partners, key=ls.index)
