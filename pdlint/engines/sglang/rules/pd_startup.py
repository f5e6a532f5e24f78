"""Role-dependent start-up checks outside SGLang's argument resolution
(``research/sglang-rules.md`` section 2): SGL187-SGL190.

These run while the scheduler builds its KV pools, transfer manager and
bootstrap server, after ``resolve_once()`` and ``check_server_args()`` have
passed, so they still fail (or, for the warning, mark) the launch.  SGLang's
argument oracle stops before them: their firing examples are launches the
oracle ACCEPTS (see each rule's notes).
"""

from pdlint.engines.sglang.rulebase import WARNING, Hit, ex, sgl_rule
from pdlint.engines.sglang.rules.pd_disagg import THR, host_receive_on

BUILTIN_BACKENDS = ("mooncake", "nixl", "mori", "ascend", "fake")
ORACLE_NOTE = ("A start-up check: SGLang's argument resolution accepts the firing examples; the server fails "
               "when it starts.")


@sgl_rule(
    "SGL187", "host-receive-without-capable-backend", roles=("decode",),
    upstream="Transfer backend does not support decode host KV destinations",
    source="disaggregation/decode.py:776", upstream_id="pd-host-receive-no-builtin-backend",
    why="A host-receive threshold below 1 makes the decode server receive KV straight into host memory, which "
        "the transfer backend must support. No built-in backend (mooncake, nixl, mori, ascend, fake) does in "
        "SGLang 0.5.23, so the decode scheduler fails at start-up although argument resolution passed.",
    fix="Keep `--disaggregation-decode-host-receive-threshold` at 1 (the default) unless a transfer-backend "
        "plugin that supports host destinations is installed.",
    fire=["--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 0.5",
          "--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 0 "
          "--disaggregation-transfer-backend nixl"],
    quiet=["--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 1",
           "--disaggregation-mode decode"],
    notes=ORACLE_NOTE + " The host-pool sizing and layout checks of the same start-up step "
                        "(disaggregation/decode.py:690-754) fail earlier for some models.")
def _host_receive_backend(a):
    if a.role == "decode" and host_receive_on(a) and a.among("disaggregation_transfer_backend", BUILTIN_BACKENDS):
        return Hit(THR)


@sgl_rule(
    "SGL188", "staging-buffer-without-chunked-prefill", roles=("prefill",),
    upstream="SGLANG_DISAGG_STAGING_BUFFER requires a positive chunked_prefill_size that is a multiple of page_size "
             "({page_size}); got {chunked_prefill_size}.",
    source="disaggregation/prefill.py:232", upstream_id="pd-staging-buffer-chunk-grid",
    env=("SGLANG_DISAGG_STAGING_BUFFER",),
    why="The staging buffer slices every KV send into a fixed page-aligned grid of chunked-prefill size; with "
        "chunked prefill disabled there is no grid.",
    fix="Set a positive `--chunked-prefill-size` (a multiple of `--page-size`) on the prefill server, or unset "
        "`SGLANG_DISAGG_STAGING_BUFFER`.",
    fire=[ex("--disaggregation-mode prefill --chunked-prefill-size -1", {"SGLANG_DISAGG_STAGING_BUFFER": "1"})],
    quiet=[ex("--disaggregation-mode prefill --chunked-prefill-size 4096", {"SGLANG_DISAGG_STAGING_BUFFER": "1"}),
           ex("--disaggregation-mode prefill --chunked-prefill-size -1", {"SGLANG_DISAGG_STAGING_BUFFER": "0"})],
    notes=ORACLE_NOTE + " A chunk size that is not a multiple of the page size fails earlier (SGL103); an unset "
                        "or 0 size counts as 8192.")
def _staging_chunk(a):
    chunk = a.resolved_chunked_prefill_size()
    if a.role == "prefill" and a.env_truthy("SGLANG_DISAGG_STAGING_BUFFER") and chunk is not None and chunk < 0:
        page = a.get("page_size") if a.explicit("page_size") else "resolved page size"
        return Hit("chunked_prefill_size", fmt={"page_size": page, "chunked_prefill_size": chunk},
                   note="SGLANG_DISAGG_STAGING_BUFFER is set in this launch's environment")


@sgl_rule(
    "SGL189", "staging-buffer-pp-without-mooncake", roles=("prefill",),
    upstream="SGLANG_DISAGG_STAGING_BUFFER with pp_size > 1 is only supported by Mooncake.",
    source="disaggregation/prefill.py:238", upstream_id="pd-staging-buffer-pp-mooncake",
    env=("SGLANG_DISAGG_STAGING_BUFFER",),
    why="Staging-buffer transfers from a pipeline-parallel prefill are implemented by the Mooncake backend only "
        "(NIXL supports the staging buffer with `--pp-size 1`).",
    fix="Use `--disaggregation-transfer-backend mooncake`, `--pp-size 1`, or unset `SGLANG_DISAGG_STAGING_BUFFER`.",
    fire=[ex("--disaggregation-mode prefill --pp-size 2 --disaggregation-transfer-backend nixl",
             {"SGLANG_DISAGG_STAGING_BUFFER": "1"})],
    quiet=[ex("--disaggregation-mode prefill --pp-size 2", {"SGLANG_DISAGG_STAGING_BUFFER": "1"}),
           ex("--disaggregation-mode prefill --disaggregation-transfer-backend nixl",
              {"SGLANG_DISAGG_STAGING_BUFFER": "1"})],
    notes=ORACLE_NOTE)
def _staging_pp(a):
    if (a.role == "prefill" and a.env_truthy("SGLANG_DISAGG_STAGING_BUFFER") and a.gt("pp_size", 1)
            and a.ne("disaggregation_transfer_backend", "mooncake")):
        return Hit("disaggregation_transfer_backend", "pp_size",
                   note="SGLANG_DISAGG_STAGING_BUFFER is set in this launch's environment")


@sgl_rule(
    "SGL190", "role-switch-bootstrap-server", roles=("prefill", "decode"), severity=WARNING, default=False,
    upstream="Role switch starts a bootstrap server on this instance at %s:%d. If another PD instance runs on the "
             "same host, give each one a distinct --disaggregation-bootstrap-port or the bind will conflict.",
    source="managers/disagg_service.py:33", upstream_id="pd-role-switch-bootstrap-port",
    why="Normally only prefill servers bind the KV bootstrap port; with `--enable-pd-role-switch` every PD "
        "server (decode too) does, so co-located prefill and decode instances collide on the default port 8998.",
    fix="Give every role-switching instance on a host its own `--disaggregation-bootstrap-port`.",
    fire=["--disaggregation-mode decode --enable-pd-role-switch",
          "--disaggregation-mode prefill --enable-pd-role-switch --disaggregation-bootstrap-port 9001"],
    quiet=["--disaggregation-mode decode", "--enable-pd-role-switch"],
    notes="Logged when the server starts its bootstrap server, after argument resolution. The upstream text is "
          "SGLang's %-format logger message; pdlint names the address in its note.")
def _role_switch_bootstrap(a):
    if a.pd and a.is_true("enable_pd_role_switch"):
        host, port = a.get("host"), a.get("disaggregation_bootstrap_port")
        known = a.known("host") and a.known("disaggregation_bootstrap_port")
        note = f"this server binds {host}:{port}" if known else ""
        return Hit("enable_pd_role_switch", "disaggregation_bootstrap_port", note=note)
