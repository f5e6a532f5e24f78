"""Bounded runs of one launch text with other values (Justfile recipe calls, recursive `$(MAKE)` runs, Ansible
`group_vars/<group>/` files): field test rw23/h found each cap dropping the runs past it without a word - eight
decode calls, then the prefill one and its SGL101 never built, exit 0.  The runs kept are those bringing the most
values (pdlint.formats.choose), the rest is said where it starts."""

import pytest

from pdlint.formats.choose import most_varied


def test_most_varied_prefers_the_items_bringing_new_values():
    items = [{("role", "decode"), ("port", str(p))} for p in range(10)] + [{("role", "prefill"), ("port", "1")}]
    assert most_varied(items, 3) == [0, 2, 10]  # (the prefill one first; its port 1 is not new after it)
    assert most_varied(items[:3], 3) == [0, 1, 2]  # within the bound: all, in order
    assert most_varied([{1}, {1}, {1}], 2) == [0, 1]  # nothing new: the first ones


def _codes(doc):
    return sorted(f["code"] for f in doc["findings"])


@pytest.mark.parametrize("n", [7, 12])
def test_a_recipe_called_past_the_bound_runs_the_varied_calls(scratch_git, n):
    body = "serve role spec port gpu:\n    CUDA_VISIBLE_DEVICES={{gpu}} python -m sglang.launch_server " \
           "--model-path m --disaggregation-mode {{role}} --port {{port}} {{spec}}\n\npd:\n"
    body += "".join(f"    just serve decode --log-level=info {31000 + i} {i}\n" for i in range(n))
    body += "    just serve prefill --enable-linear-replayssm-spec 30001 9\n"
    scratch_git.write("Justfile", body)
    code, doc = scratch_git.lint(".")
    assert "prefill" in {l["role"] for l in doc["launches"]}
    if n == 7:
        assert _codes(doc) == ["SGL101"]
    else:
        assert _codes(doc) == ["PD020", "SGL101"] and code == 1
        (f,) = [f for f in doc["findings"] if f["code"] == "PD020"]
        assert f"{n + 1 - 8} more calls of recipe 'serve' with other arguments" in f["message"]


@pytest.mark.parametrize("n", [31, 40])
def test_recursive_make_runs_past_the_bound_build_the_varied_runs(scratch_git, n):
    body = "serve:\n\tpython -m sglang.launch_server --model-path m --disaggregation-mode $(ROLE) --port $(PORT) " \
           "$(EXTRA)\n\npd:\n"
    body += "".join(f"\t$(MAKE) serve ROLE=decode PORT={31000 + i} EXTRA=--log-level=info &\n" for i in range(n))
    body += "\t$(MAKE) serve ROLE=prefill PORT=30001 EXTRA=--enable-linear-replayssm-spec\n"
    (scratch_git.root / "Makefile").write_text(body)
    code, doc = scratch_git.lint(".")
    assert "prefill" in {l["role"] for l in doc["launches"]}
    if n == 31:
        assert _codes(doc) == ["SGL101"]
    else:
        assert _codes(doc) == ["PD020", "SGL101"] and code == 1
        (f,) = [f for f in doc["findings"] if f["code"] == "PD020"]
        assert f"{n + 1 - 32} more runs of recipes with other variables" in f["message"]


def test_group_vars_directory_keeps_the_files_that_win(scratch_git):
    w = scratch_git.write
    w("roles/sgl/templates/launch.sh.j2", "#!/bin/bash\npython -m sglang.launch_server --model-path m "
      "--disaggregation-mode {{ sgl_role }} {% if spec %}--enable-linear-replayssm-spec{% endif %} --port {{ port }}\n")
    w("roles/sgl/tasks/main.yml", "- name: write launch\n  template:\n    src: launch.sh.j2\n    dest: /opt/launch.sh\n")
    w("roles/sgl/defaults/main.yml", "spec: false\nport: 30000\n")
    w("site.yml", "- hosts: prefill\n  roles:\n    - role: sgl\n      vars: {sgl_role: prefill}\n")
    for i in range(1, 41):
        w(f"group_vars/prefill/a{i:02d}.yml", f"note_{i}: x\n")
    w("group_vars/prefill/zz.yml", "spec: true\n")  # (loaded last: it wins)
    code, doc = scratch_git.lint(".")
    assert "SGL101" in _codes(doc) and code == 1
