"""The VM lab guests' code cache for zip imports (roles/vm_lab/files/guest/usr/lib/python3/dist-packages/vm_lab_codecache.py),
on this machine's Python: the same source is compiled once, what runs is the same, and a directory that is not the
user's own is not used."""
import importlib.util
import os
import zipfile
import zipimport

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HOOK = os.path.join(ROOT, "roles", "vm_lab", "files", "guest", "usr", "lib", "python3", "dist-packages", "vm_lab_codecache.py")


def _hook():
    spec = importlib.util.spec_from_file_location("vm_lab_codecache_under_test", HOOK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _archive(path, body):
    with zipfile.ZipFile(str(path), "w") as archive:
        archive.writestr("zipped_payload.py", body)
    return str(path)


def _import_from(archive):
    spec = zipimport.zipimporter(archive).find_spec("zipped_payload")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _counted_compiler(compiled):
    """zipimport's compile step, noting each path it compiles in ``compiled``."""
    def compile_source(pathname, source):
        compiled.append(pathname)
        return compile(source, pathname, "exec", dont_inherit=True)
    return compile_source


def test_the_same_source_is_compiled_once_and_runs_the_same(tmp_path, monkeypatch):
    hook, compiled = _hook(), []
    cache = str(tmp_path / "cache")
    monkeypatch.setattr(zipimport, "_compile_source", hook.cached_compile(_counted_compiler(compiled), cache))
    first = _import_from(_archive(tmp_path / "one.zip", "def answer():\n    return 42\n"))
    second = _import_from(_archive(tmp_path / "two.zip", "def answer():\n    return 42\n"))
    assert first.answer() == second.answer() == 42
    assert compiled == [os.path.join(str(tmp_path / "one.zip"), "zipped_payload.py")]
    # the cached code names the archive it was imported from this time
    assert second.answer.__code__.co_filename == os.path.join(str(tmp_path / "two.zip"), "zipped_payload.py")
    assert oct(os.stat(cache).st_mode & 0o777) == "0o700" and len(os.listdir(cache)) == 1
    changed = _import_from(_archive(tmp_path / "three.zip", "def answer():\n    return 43\n"))
    assert changed.answer() == 43 and len(compiled) == 2


def test_a_directory_others_can_write_is_not_used(tmp_path):
    hook = _hook()
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(str(shared), 0o777)
    compiled = []
    cached = hook.cached_compile(_counted_compiler(compiled), str(shared))
    cached("a.zip/m.py", b"x = 1\n")
    cached("a.zip/m.py", b"x = 1\n")
    assert len(compiled) == 2 and os.listdir(str(shared)) == []
