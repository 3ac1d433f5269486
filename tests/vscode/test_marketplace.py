"""The .vsix is ready for the Marketplace and Open VSX: vsce packages it without a warning, and it carries the
icon, README, CHANGELOG, LICENSE and the manifest fields (repository, license, categories, keywords) the extension
page shows."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zipfile
from pathlib import Path
from xml.etree import ElementTree

CLIENT = Path(__file__).resolve().parents[2] / "client-vscode"
ICON = CLIENT / "images" / "icon.png"
VSIX_NS = "{http://schemas.microsoft.com/developer/vsx-schema/2011}"


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_vsce_package_has_no_warning(vsix_build: subprocess.CompletedProcess[str]) -> None:
    assert "DONE" in vsix_build.stderr and "Packaged:" in vsix_build.stderr, vsix_build.stderr
    assert "WARNING" not in vsix_build.stderr, vsix_build.stderr


def test_the_build_prints_no_file_tree(vsix_build: subprocess.CompletedProcess[str]) -> None:
    # A few lines (the bundle check, the prepublish script, DONE), not vsce's tree of every packaged file.
    assert "Files included" not in vsix_build.stderr and "├─" not in vsix_build.stderr, vsix_build.stderr
    assert len(vsix_build.stderr.splitlines()) < 12, vsix_build.stderr


def test_vsix_ships_the_extension_page(vsix: Path) -> None:
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
        icon = z.read("extension/images/icon.png")
        readme = z.read("extension/readme.md").decode()
        changelog = z.read("extension/changelog.md").decode()
        vsixmanifest = ElementTree.fromstring(z.read("extension.vsixmanifest"))
    outside_libs = {n for n in names if not n.startswith("extension/bundled/libs/")}
    assert outside_libs == {
        "[Content_Types].xml",
        "extension.vsixmanifest",
        "extension/LICENSE.txt",
        "extension/changelog.md",
        "extension/readme.md",
        "extension/package.json",
        "extension/images/icon.png",
        "extension/dist/extension.js",
        "extension/language-configuration/agent-inbox.json",
        "extension/language-configuration/agent-outbox.json",
        "extension/language-configuration/cli-script.json",
        "extension/syntaxes/agent-inbox.tmLanguage.json",
        "extension/syntaxes/agent-outbox.tmLanguage.json",
        "extension/syntaxes/cli-script.tmLanguage.json",
    }
    assert icon == ICON.read_bytes()
    assert png_size(icon) == (128, 128)
    assert readme.startswith("# heredoc-lsp for VS Code")
    assert changelog.startswith("# Changelog") and f"## {manifest['version']}" in changelog
    assert manifest["icon"] == "images/icon.png"
    assert manifest["license"] == "MIT"
    assert manifest["repository"]["url"].startswith("https://")
    assert manifest["bugs"]["url"].startswith("https://")
    assert manifest["homepage"].startswith("https://")
    assert {"Programming Languages", "Linters"} <= set(manifest["categories"])
    assert {"heredoc", "lsp", "linter", "llm"} <= set(manifest["keywords"])
    metadata = vsixmanifest.find(f"{VSIX_NS}Metadata")
    assert metadata is not None
    assert metadata.findtext(f"{VSIX_NS}Icon") == "extension/images/icon.png"
    assert metadata.findtext(f"{VSIX_NS}License") == "extension/LICENSE.txt"
    properties = {p.get("Id"): p.get("Value") for p in metadata.iter(f"{VSIX_NS}Property")}
    assert properties.get("Microsoft.VisualStudio.Services.Links.Source") == manifest["repository"]["url"]


def test_icon_is_the_generator_output(tmp_path: Path) -> None:
    """The committed icon is what client-vscode/images/make_icon.py draws."""
    out = tmp_path / "icon.png"
    subprocess.run([sys.executable, str(CLIENT / "images" / "make_icon.py"), str(out)], check=True, timeout=60)
    assert out.read_bytes() == ICON.read_bytes()
