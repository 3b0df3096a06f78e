"""docs/class-hub-config.yaml is a configuration the Zero to JupyterHub chart accepts.

As Helm does with `helm install -f config.yaml`: the config is deep-merged over the chart's values.yaml
(nested mappings key by key, the config winning), and the result is validated against the chart's
values.schema.yaml. Both files come unchanged from jupyterhub/zero-to-jupyterhub-k8s, in ../shared/z2jh/
(its README says which commit); where that folder is absent, the tests skip with that reason.
"""

import copy
import functools
import re
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[1]
Z2JH = Path(__file__).resolve().parents[2] / "shared" / "z2jh"
CONFIG = ROOT / "docs" / "class-hub-config.yaml"
pytestmark = pytest.mark.skipif(not (Z2JH / "values.schema.yaml").exists(),
                                reason=f"Zero to JupyterHub's schema is not at {Z2JH} (outside this CI)")


def deep_merge(base, over):
    """Helm's merge: mappings merge key by key, anything else in `over` replaces what `base` has."""
    if isinstance(base, dict) and isinstance(over, dict):
        merged = dict(base)
        for key, value in over.items():
            merged[key] = deep_merge(base[key], value) if key in base else value
        return merged
    return copy.deepcopy(over)


@functools.cache
def chart() -> tuple:
    """The chart's defaults and a validator for its schema (read once: the schema is large)."""
    schema = yaml.safe_load((Z2JH / "values.schema.yaml").read_text(encoding="utf-8"))
    values = yaml.safe_load((Z2JH / "values.yaml").read_text(encoding="utf-8"))
    return values, jsonschema.validators.validator_for(schema)(schema)


def problems(config: dict) -> list[str]:
    values, validator = chart()
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(deep_merge(values, config))]


def class_config() -> dict:
    return yaml.safe_load(CONFIG.read_text(encoding="utf-8"))


def test_the_merge_by_hand():
    base = {"a": {"b": 1, "c": {"d": 2}}, "e": [1, 2]}
    assert deep_merge(base, {"a": {"c": {"d": 3}}, "e": [9]}) == {"a": {"b": 1, "c": {"d": 3}}, "e": [9]}
    assert base == {"a": {"b": 1, "c": {"d": 2}}, "e": [1, 2]}           # the chart's values unchanged


def test_the_class_config_is_one_the_chart_accepts():
    assert problems(class_config()) == []


def test_it_says_what_the_guide_and_the_image_say():
    single = class_config()["singleuser"]
    assert single["memory"] == {"guarantee": "1G", "limit": "2G"}            # mybinder.org's 2 GB
    assert single["defaultUrl"].endswith("/notebooks/00-start-here.ipynb")
    pull = " ".join(single["lifecycleHooks"]["postStart"]["exec"]["command"])
    assert 'cd "$HOME" && gitpuller https://github.com/OWNER/REPO main REPO' in pull
    assert pull.endswith("|| true")
    assert single["extraEnv"]["OPENBLAS_NUM_THREADS"] == "1"
    # lesson 08's model where the image keeps it: repo2docker's environment, outside the home volume
    image_folder = "/srv/conda/envs/notebook/share/attention-lab"
    assert single["extraEnv"]["ATTENTION_LAB_CACHE"] == image_folder
    assert not image_folder.startswith(single.get("storage", {}).get("homeMountPath", "/home/jovyan"))
    for script in ("postBuild", "start"):
        text = (ROOT / "binder" / script).read_text()
        assert "ATTENTION_LAB_CACHE=" in text and "print(sys.prefix)')/share/attention-lab" in text, script
    assert class_config()["cull"]["enabled"] is True
    assert "nbgitpuller" in (ROOT / "binder" / "requirements.txt").read_text()   # the hook's command


def test_students_work_in_their_home_volume():
    """Teacher's review, round 2, item 8. The image is built with repo2docker's --target-repo-dir, and
    repo2docker's Dockerfile sets WORKDIR to that folder; KubeSpawner's working_dir "defaults to None so
    the working directory will be the one defined in the Dockerfile"; Jupyter Server's root folder defaults
    to the folder it starts in, and nbgitpuller clones into that root. So without working_dir the student's
    copy would sit in the container, outside the home volume, and be lost when the server stops. The
    servers start in the home volume, and the hook clones there too."""
    config = class_config()
    values, _ = chart()
    home = deep_merge(values, config)["singleuser"]["storage"]["homeMountPath"]
    built = re.search(r"--target-repo-dir (\S+)", CONFIG.read_text(encoding="utf-8")).group(1)
    assert not built.startswith(home)                                   # the repository is outside the home
    assert config["hub"]["config"]["KubeSpawner"]["working_dir"] == home
    assert " ".join(config["singleuser"]["lifecycleHooks"]["postStart"]["exec"]["command"]).startswith(
        'sh -c cd "$HOME" && ')


@pytest.mark.parametrize("path, wrong", [
    (("singleuser", "memory"), {"limt": "2G"}),                   # a misspelt key
    (("singleuser", "cpu"), {"limit": "one"}),                    # not a number
    (("cull",), {"timeout": "an hour"}),
])
def test_a_mistake_in_the_config_is_refused(path, wrong):
    config = class_config()
    node = config
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = dict(node[path[-1]], **wrong)
    assert problems(config), f"the schema let {wrong} through"
