"""The volume content API (a volume's files through the daemon, no sandbox) through the
official e2b SDK's Volume: write, read, list, make_dir, get_info, update_metadata,
remove; and a sandbox that mounts the volume sees what the API wrote. Exact values."""

from __future__ import annotations

import os
import secrets

import pytest
from e2b import AuthenticationException, Sandbox, Volume, VolumeException, VolumeFileType, VolumePathNotFoundException


@pytest.fixture
def volume(daemon):
    os.environ["E2B_VOLUME_API_URL"] = daemon.url
    vol = Volume.create(f"content-{secrets.token_hex(4)}")
    try:
        yield vol
    finally:
        Volume.destroy(vol.volume_id)


def test_files_are_written_read_and_replaced_only_with_force(volume):
    info = volume.write_file("/notes.txt", "hello volume\n")
    assert (info.name, info.type, info.path, info.size) == ("notes.txt", VolumeFileType.FILE, "/notes.txt", 13)
    assert (info.mode, info.uid, info.gid) == (0o644, 1000, 1000)
    assert volume.read_file("/notes.txt") == "hello volume\n"
    with pytest.raises(VolumeException) as refused:
        volume.write_file("/notes.txt", "other")
    assert str(refused.value) == "409: Path /notes.txt already exists"
    replaced = volume.write_file("notes.txt", b"\x00\x01\xff", force=True, mode=0o600, uid=0, gid=0)
    assert (replaced.size, replaced.mode, replaced.uid, replaced.gid) == (3, 0o600, 0, 0)
    assert volume.read_file("/notes.txt", format="bytes") == b"\x00\x01\xff"
    with pytest.raises(VolumePathNotFoundException):
        volume.read_file("/missing.txt")
    with pytest.raises(VolumePathNotFoundException):
        volume.write_file("/no/such/dir/file.txt", "x")


def test_directories_are_made_listed_changed_and_removed(volume):
    made = volume.make_dir("/data/raw", force=True)
    assert (made.name, made.type, made.path, made.mode, made.uid) == ("raw", VolumeFileType.DIRECTORY, "/data/raw", 0o755, 1000)
    with pytest.raises(VolumePathNotFoundException):
        volume.make_dir("/absent/child")
    volume.write_file("/data/raw/a.csv", "x,y\n1,2\n")
    volume.write_file("/data/readme.md", "# data\n")

    top = volume.list("/")
    assert [(e.name, e.path, e.type) for e in top] == [("data", "/data", VolumeFileType.DIRECTORY)]
    deep = volume.list("/data", depth=2)
    assert [(e.path, e.type, e.size if e.type == VolumeFileType.FILE else None) for e in deep] == [
        ("/data/raw", VolumeFileType.DIRECTORY, None),
        ("/data/raw/a.csv", VolumeFileType.FILE, 8),
        ("/data/readme.md", VolumeFileType.FILE, 7),
    ]

    changed = volume.update_metadata("/data/readme.md", mode=0o640, uid=1001, gid=1002)
    assert (changed.mode, changed.uid, changed.gid) == (0o640, 1001, 1002)
    assert volume.get_info("/data/readme.md").mode == 0o640
    assert volume.exists("/data/raw/a.csv") is True
    assert volume.exists("/data/nope") is False

    volume.remove("/data/raw")
    assert volume.exists("/data/raw") is False
    assert [e.path for e in volume.list("/data")] == ["/data/readme.md"]
    with pytest.raises(VolumePathNotFoundException):
        volume.remove("/data/raw")


def test_a_wrong_token_is_refused(volume):
    stranger = Volume(volume_id=volume.volume_id, name=volume.name, token="not-the-token")
    with pytest.raises(AuthenticationException):
        stranger.read_file("/anything")


def test_a_sandbox_sees_what_the_api_wrote_and_the_api_what_it_wrote(volume):
    volume.write_file("/from-api.txt", "written through the API\n")
    sbx = Sandbox.create(volume_mounts={"/mnt/vol": volume})
    try:
        assert sbx.files.read("/mnt/vol/from-api.txt") == "written through the API\n"
        sbx.files.write("/mnt/vol/from-sandbox.txt", "written inside\n")
        out = sbx.commands.run("stat -c '%U %a' /mnt/vol/from-api.txt")
        assert out.stdout == "user 644\n"
    finally:
        sbx.kill()
    assert volume.read_file("/from-sandbox.txt") == "written inside\n"
    assert volume.get_info("/from-sandbox.txt").uid == 1000
