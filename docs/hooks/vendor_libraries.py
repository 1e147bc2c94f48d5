"""Front-end libraries served by the site itself: mermaid (the troubleshooting flowchart) and KaTeX (the
lessons' maths), fetched once from the npm registry, pinned by version and checksum, cached in
build/docs-cache/vendor/, and loaded only on the pages that use them. Nothing from another host; nothing in git.
"""
from __future__ import annotations

import base64
import hashlib
import io
import logging
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from notebook_runs import CACHE

log = logging.getLogger("mkdocs.plugins.gradtutor")

# Front-end libraries, from the npm registry (its ordinary client), pinned by version and integrity.
VENDOR = {
    "mermaid": {
        "spec": "mermaid@11.17.2",
        "integrity": "sha512-V6K3C8EBdEsPFZXSKMJe6ppQOENxuHARr9GvHX4hh47lAbhMRD9qf4oEK7LoaRQxULMa80/qt5gHO73aCleBBg==",
        "files": [r"dist/mermaid\.min\.js"],
    },
    "katex": {
        "spec": "katex@0.16.22",
        "integrity": "sha512-XCHRdUw4lf3SKBaJe4EvgqIuWwkPSo9XoeO8GjQW94Bp7TWv9hNhzZjZ+OH9yf1UmLygb7DIT5GSFQiyt16zYg==",
        "files": [r"dist/katex\.min\.(js|css)", r"dist/fonts/[\w-]+\.woff2"],  # Chromium & co. read woff2
    },
}

VENDOR_URL = "assets/vendor"

def vendor_files() -> dict[str, bytes]:
    out = {}
    for name, spec in VENDOR.items():
        folder = _vendor_package(name, spec)
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                out[f"{name}/{path.relative_to(folder).as_posix()}"] = path.read_bytes()
    return out

def _vendor_package(name: str, spec: dict) -> Path:
    version = spec["spec"].rsplit("@", 1)[1]
    folder = CACHE / "vendor" / f"{name}-{version}"
    if (folder / ".complete").is_file():
        return folder
    npm = shutil.which("npm")
    if npm is None:
        raise PluginError(f"the docs serve {spec['spec']} themselves (no CDN), and fetch it once from the npm "
                          f"registry with `npm pack`: install npm (Debian: apt-get install npm), then build again")
    with tempfile.TemporaryDirectory(prefix="gradtutor-vendor-") as tmp:
        result = subprocess.run([npm, "pack", spec["spec"], "--pack-destination", tmp, "--json", "--silent"],
                                capture_output=True, text=True, cwd=tmp, timeout=300)
        tarballs = list(Path(tmp).glob("*.tgz"))
        if result.returncode != 0 or len(tarballs) != 1:
            raise PluginError(f"`npm pack {spec['spec']}` failed:\n{result.stderr[-2000:]}")
        data = tarballs[0].read_bytes()
        integrity = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
        if integrity != spec["integrity"]:
            raise PluginError(f"{spec['spec']}: checksum {integrity} is not the pinned {spec['integrity']}")
        staging = folder.with_name(folder.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        patterns = [re.compile("package/" + p) for p in spec["files"]]
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for member in archive.getmembers():
                if member.isfile() and any(p.fullmatch(member.name) for p in patterns):
                    relative = member.name[len("package/dist/"):]
                    content = archive.extractfile(member).read()
                    if relative.endswith(".js"):  # no source map: it is not shipped, so nothing may ask for it
                        content = re.sub(rb"\n//# sourceMappingURL=\S+\s*$", b"\n", content)
                    destination = staging / relative
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    destination.write_bytes(content)
        (staging / ".complete").write_text(spec["spec"] + "\n")
        shutil.rmtree(folder, ignore_errors=True)
        staging.rename(folder)
    log.info("fetched %s from the npm registry into %s", spec["spec"], folder)
    return folder


def head_tags(output: str, page_url: str) -> list[str]:
    """The <head> tags that load mermaid and KaTeX, from this site, for a page whose HTML uses them."""
    def url(path):
        return get_relative_url(f"{VENDOR_URL}/{path}", page_url)

    head = []
    if 'class="mermaid"' in output:
        # material renders the diagrams itself and uses this `mermaid` instead of fetching one from a CDN.
        head.append(f'<script src="{url("mermaid/mermaid.min.js")}"></script>')
        # and draws them no smaller than 11 px text: a wider one scrolls sideways (mermaid.js says how)
        head.append(f'<script src="{get_relative_url("assets/javascripts/mermaid.js", page_url)}"></script>')
    if 'class="arithmatex"' in output:
        head.append(f'<link rel="stylesheet" href="{url("katex/katex.min.css")}">')
        head.append(f'<script src="{url("katex/katex.min.js")}"></script>')
        head.append(f'<script defer src="{get_relative_url("assets/javascripts/math.js", page_url)}"></script>')
    return head
