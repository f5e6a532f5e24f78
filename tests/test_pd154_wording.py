"""PD154's message names another role's server on the URL's port only when the URL's host reaches that server.

Field test rw18/p (P11, repro 13): a Compose router's `--decode http://sgl-decode:30000`, where `sgl-decode` is the
decode service's `hostname` (it listens on 30001) and the prefill - another container - listens on 30000, was told
"port 30000 is the prefill server's": the URL reaches the decode container, where nothing listens on 30000."""

COMPOSE = """\
services:
  prefill:
    image: lmsysorg/sglang:v0.5.5
    container_name: sgl-prefill
    networks:
      pd:
        aliases: [p0]
    command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --port 30000 --host 0.0.0.0
  decode:
    image: lmsysorg/sglang:v0.5.5
    hostname: sgl-decode
    networks: [pd]
    command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --port 30001 --host 0.0.0.0
  router:
    image: lmsysorg/sglang:v0.5.5
    networks: [pd]
    command: python3 -m sglang_router.launch_router --pd-disaggregation --prefill http://p0:30000 --decode http://sgl-decode:30000 --host 0.0.0.0 --port 8000
networks:
  pd: {}
"""

SCRIPT = """\
#!/bin/bash
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --port 30000 --base-gpu-id 0 &
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --port 30001 --base-gpu-id 1 &
python3 -m sglang_router.launch_router --pd-disaggregation --prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30000 --port 8000
"""


def _pd154(scratch_git, name, text):
    scratch_git.write(name, text)
    code, report = scratch_git.lint(name)
    found = [f for f in report["findings"] if f["code"] == "PD154"]
    assert len(found) == 1 and code == 1, report["findings"]
    return found[0]


def test_a_compose_dns_name_of_the_decode_names_the_decode_not_the_prefill_port(scratch_git):
    f = _pd154(scratch_git, "docker-compose.yml", COMPOSE)
    assert f["line"] == 17
    assert "prefill server's" not in f["message"], f["message"]
    assert f["message"].endswith("listens on 30001 - sgl-decode is the decode server's address: nothing listens "
                                 "on port 30000 there"), f["message"]


def test_a_loopback_url_on_the_prefill_servers_port_still_names_it(scratch_git):
    # (the servers and the router share the host: 127.0.0.1:30000 does reach the prefill server)
    f = _pd154(scratch_git, "run.sh", SCRIPT)
    assert f["message"].endswith("listens on 30001 - port 30000 is the prefill server's"), f["message"]
