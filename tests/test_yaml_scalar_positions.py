"""Where a YAML scalar's characters are written: an anchored or tagged scalar's mark starts at its anchor, and a
scalar that many aliases reach is aligned with its source once (field test rw20/h: a 200 KB anchored scalar
aliased 200 times was re-aligned character by character per alias, the whole 10 s budget of its file)."""

from pdlint.formats import yamltree as yt
from pdlint.text import SourceFile, TStr


def _value(text: str, path: tuple):
    doc = TStr.from_source(SourceFile("pd.yaml", text))
    (d,) = yt.compose(text)
    ref = yt.Ref(d.root)
    for key in path:
        ref = yt.seq_items(ref)[key] if isinstance(key, int) else yt.get(ref, key)
    return yt.scalar_tstr(doc, ref)


def _columns(t):
    return [t.origin_at(i).column for i in range(len(t.text))]


def test_an_anchored_quoted_scalar_maps_to_its_characters():
    t = _value('x: &a "--tp-size"\nargs: [*a]\n', ("args", 0))
    assert t.text == "--tp-size" and _columns(t)[:3] == [8, 9, 10]
    assert any("alias *a" in h.note for p in t.pieces for h in p.chain)


def test_a_tagged_plain_scalar_maps_to_its_characters():
    t = _value("x: !!str --port\n", ("x",))
    assert t.text == "--port" and _columns(t)[0] == 10


def test_a_folded_scalar_aliased_twice_is_aligned_once(monkeypatch):
    text = "x: &a >\n  --model-path\n  /m\nargs: [*a, *a]\n"
    calls = []
    real = yt._align
    monkeypatch.setattr(yt, "_align", lambda *a: calls.append(1) or real(*a))
    doc = TStr.from_source(SourceFile("pd.yaml", text))
    (d,) = yt.compose(text)
    items = yt.seq_items(yt.get(yt.Ref(d.root), "args"))
    values = [yt.scalar_tstr(doc, i) for i in items]
    assert [v.text for v in values] == ["--model-path /m\n"] * 2 and len(calls) == 1
    assert values[0].origin_at(0).line == values[1].origin_at(0).line == 2
