"""module_utils.host.files: a file that is not there reads as the default, a record as {}."""
from ansible_collections.offload.testbed.plugins.module_utils.host.files import read_record, read_text


def test_a_file_reads_as_its_text_and_a_missing_one_as_the_default(tmp_path):
    (tmp_path / "nr_hugepages").write_text("192\n")
    assert read_text(str(tmp_path / "nr_hugepages")) == "192\n"
    assert read_text(str(tmp_path / "absent")) == ""
    assert read_text(str(tmp_path / "absent"), "0") == "0"
    assert read_text(str(tmp_path)) == ""  # a directory cannot be read as a file


def test_a_record_reads_as_its_json_and_nothing_as_an_empty_one(tmp_path):
    (tmp_path / "r.json").write_text('{"counts": {"2048kB": {"before": 0, "set": 192}}, "mounts": {}}\n')
    assert read_record(str(tmp_path / "r.json")) == {"counts": {"2048kB": {"before": 0, "set": 192}}, "mounts": {}}
    (tmp_path / "empty.json").write_text("")
    assert read_record(str(tmp_path / "empty.json")) == {}
    assert read_record(str(tmp_path / "absent.json")) == {}
