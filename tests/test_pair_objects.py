"""A Kubernetes object that starts both roles itself is a deployment of its own, also where a kustomize build
(or a chart) puts several into one unit: sgl-project/ome's config/clusterresources kustomization builds every
ClusterServingRuntime, and a Kimi prefill was paired with a DeepSeek decode (20 false SGL802)."""

RBG = """\
    apiVersion: workloads.x-k8s.io/v1alpha1
    kind: RoleBasedGroup
    metadata:
      name: NAME
    spec:
      roles:
      - name: prefill
        template:
          spec:
            containers:
            - name: p
              command: [python3, -m, sglang.launch_server, --model-path, MODEL, --disaggregation-mode, prefill,
                        --page-size, "PAGE"]
      - name: decode
        template:
          spec:
            containers:
            - name: d
              command: [python3, -m, sglang.launch_server, --model-path, MODEL, --disaggregation-mode, decode,
                        --page-size, "PAGE"]
    """

DEPLOYMENT = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: NAME
    spec:
      template:
        spec:
          containers:
          - name: s
            command: [python3, -m, sglang.launch_server, --model-path, /m, --disaggregation-mode, ROLE,
                      --page-size, "PAGE"]
    """


def _rbg(name, model, page):
    return RBG.replace("NAME", name).replace("MODEL", model).replace("PAGE", page)


def _pairs(report):
    return sorted((p["prefill"]["path"], p["decode"]["path"]) for d in report["pairs"] for p in d["pairs"])


def test_objects_that_start_both_roles_pair_within_themselves(scratch_git):
    scratch_git.write("kimi.yaml", _rbg("kimi", "moonshotai/Kimi-K2-Instruct", "16"))
    scratch_git.write("llama.yaml", _rbg("llama", "meta-llama/Llama-3.1-8B-Instruct", "32"))
    scratch_git.write("kustomization.yaml", "resources:\n  - kimi.yaml\n  - llama.yaml\n")
    code, report = scratch_git.lint(".")
    assert _pairs(report) == [("kimi.yaml", "kimi.yaml"), ("llama.yaml", "llama.yaml")]
    assert report["findings"] == [] and code == 0


def test_one_role_objects_of_a_build_still_pair(scratch_git):
    """Two Deployments of one build, one role each: one deployment (SGL801 between them), whatever else the
    build holds."""
    scratch_git.write("p.yaml", DEPLOYMENT.replace("NAME", "p").replace("ROLE", "prefill").replace("PAGE", "16"))
    scratch_git.write("d.yaml", DEPLOYMENT.replace("NAME", "d").replace("ROLE", "decode").replace("PAGE", "32"))
    scratch_git.write("kimi.yaml", _rbg("kimi", "/m", "32"))
    scratch_git.write("kustomization.yaml", "resources:\n  - p.yaml\n  - d.yaml\n  - kimi.yaml\n")
    code, report = scratch_git.lint(".")
    assert _pairs(report) == [("kimi.yaml", "kimi.yaml"), ("p.yaml", "d.yaml")]
    # the Deployments' page sizes differ; the RoleBasedGroup's 32 is no concern of the prefill Deployment's 16
    assert [(f["code"], f["path"]) for f in report["findings"]] == [("SGL801", "d.yaml")] and code == 1
