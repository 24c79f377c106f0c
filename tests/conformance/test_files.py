"""sbx.files against dsh-envd: /files up- and downloads and filesystem.Filesystem."""

from __future__ import annotations

import asyncio
import io
import os
from datetime import datetime, timedelta, timezone

import pytest
from e2b import (
    AsyncSandbox,
    AuthenticationException,
    FileNotFoundException,
    FilesystemEventType,
    FileType,
    InvalidArgumentException,
    NotFoundException,
    SandboxException,
    TimeoutException,
    WriteInfo,
)

from conftest import USER, USER_HOME, host_path, wait_until

MULTIBYTE = "héllo 你好 🎉\n"
# Every byte value, then sequences that are not valid UTF-8.
BINARY = bytes(range(256)) + b"\xff\xfe\xc3\x28\xa0\xa1\xe2\x28\xa1\x00"

CREATE = FilesystemEventType.CREATE
WRITE = FilesystemEventType.WRITE
REMOVE = FilesystemEventType.REMOVE


def entries(items):
    return [(e.name, e.type, e.path) for e in items]


# --- write / read -----------------------------------------------------------


def test_write_read_multibyte_text(sbx, udir):
    path = f"{udir}/hello.txt"
    info = sbx.files.write(path, MULTIBYTE)
    assert info == WriteInfo(name="hello.txt", type=FileType.FILE, path=path)
    assert sbx.files.read(path) == MULTIBYTE
    assert sbx.files.read(path, format="bytes") == bytearray(MULTIBYTE.encode())
    assert sbx.files.get_info(path).size == len(MULTIBYTE.encode()) == 19


def test_write_read_non_utf8_bytes(sbx, udir):
    path = f"{udir}/blob.bin"
    info = sbx.files.write(path, BINARY)
    assert info == WriteInfo(name="blob.bin", type=FileType.FILE, path=path)
    assert sbx.files.read(path, format="bytes") == bytearray(BINARY)
    assert sbx.files.get_info(path).size == len(BINARY)


def test_write_empty_file(sbx, udir):
    path = f"{udir}/empty"
    sbx.files.write(path, b"")
    assert sbx.files.read(path, format="bytes") == bytearray()
    assert sbx.files.get_info(path).size == 0


def test_write_overwrites_and_truncates(sbx, udir):
    path = f"{udir}/over.txt"
    sbx.files.write(path, "a much longer first content\n")
    sbx.files.write(path, "x")
    assert sbx.files.read(path) == "x"


def test_octet_stream_gzip_and_stream_round_trips(sbx, udir):
    payload = os.urandom(2 * 1024 * 1024 + 123)
    # File-like data goes as application/octet-stream (envd >= 0.5.7).
    a = sbx.files.write(f"{udir}/a.bin", io.BytesIO(payload))
    # gzip=True: octet-stream with Content-Encoding: gzip.
    b = sbx.files.write(f"{udir}/b.bin", payload, gzip=True)
    # An iterable of chunks, streamed.
    c = sbx.files.write(
        f"{udir}/c.bin", (payload[i : i + 65536] for i in range(0, len(payload), 65536))
    )
    assert [a.path, b.path, c.path] == [f"{udir}/a.bin", f"{udir}/b.bin", f"{udir}/c.bin"]
    assert a.type == b.type == c.type == FileType.FILE
    for name in ("a.bin", "b.bin", "c.bin"):
        path = f"{udir}/{name}"
        assert sbx.files.read(path, format="bytes") == bytearray(payload)
        assert sbx.files.read(path, format="bytes", gzip=True) == bytearray(payload)
        with sbx.files.read(path, format="stream") as stream:
            assert b"".join(stream) == payload


def test_write_creates_parent_dirs_owned_by_user(sbx, udir):
    path = f"{udir}/p/q/r.txt"
    info = sbx.files.write(path, "deep", user=USER)
    assert info.path == path
    for d in (f"{udir}/p", f"{udir}/p/q"):
        d_info = sbx.files.get_info(d)
        assert (d_info.type, d_info.mode, d_info.permissions) == (
            FileType.DIR,
            0o755,
            "drwxr-xr-x",
        )
        assert (d_info.owner, d_info.group) == (USER, USER)
    assert sbx.files.read(path) == "deep"


def test_relative_and_tilde_paths_resolve_to_user_home(sbx):
    name = "conformance-relative.txt"
    info = sbx.files.write(name, "rel", user=USER)
    try:
        assert info.path == f"{USER_HOME}/{name}"
        assert sbx.files.read(f"{USER_HOME}/{name}") == "rel"
        assert sbx.files.read(name, user=USER) == "rel"
        assert sbx.files.get_info(name, user=USER).path == f"{USER_HOME}/{name}"
        assert sbx.files.get_info(f"~/{name}", user=USER).path == f"{USER_HOME}/{name}"
        assert sbx.files.exists(f"./sub/../{name}", user=USER) is True
    finally:
        sbx.files.remove(f"{USER_HOME}/{name}")


def test_empty_path_is_home_and_tilde_other_is_invalid(sbx):
    assert sbx.files.get_info("", user=USER).path == USER_HOME
    assert sbx.files.get_info("~", user=USER).path == USER_HOME
    assert sbx.files.get_info("", user="root").path == "/root"
    with pytest.raises(InvalidArgumentException):
        sbx.files.get_info("~root/x", user=USER)


def test_unknown_user_is_rejected(sbx, udir):
    sbx.files.write(f"{udir}/f.txt", "x")
    with pytest.raises(AuthenticationException):
        sbx.files.read(f"{udir}/f.txt", user="no-such-user-xyz")
    with pytest.raises(AuthenticationException):
        sbx.files.write(f"{udir}/g.txt", "x", user="no-such-user-xyz")
    with pytest.raises(AuthenticationException):
        sbx.files.get_info(f"{udir}/f.txt", user="no-such-user-xyz")
    assert sbx.files.exists(f"{udir}/g.txt") is False


def test_write_files_writes_several_files_in_one_call(sbx, udir):
    files = [
        {"path": f"{udir}/one.txt", "data": "one"},
        {"path": f"{udir}/nested/two.bin", "data": b"\x00\x01\xfe\xff"},
        {"path": f"{udir}/three.txt", "data": "三"},
    ]
    infos = sbx.files.write_files(files, user=USER)
    assert infos == [
        WriteInfo(name="one.txt", type=FileType.FILE, path=f"{udir}/one.txt"),
        WriteInfo(name="two.bin", type=FileType.FILE, path=f"{udir}/nested/two.bin"),
        WriteInfo(name="three.txt", type=FileType.FILE, path=f"{udir}/three.txt"),
    ]
    assert sbx.files.read(f"{udir}/one.txt") == "one"
    assert sbx.files.read(f"{udir}/nested/two.bin", format="bytes") == bytearray(
        b"\x00\x01\xfe\xff"
    )
    assert sbx.files.read(f"{udir}/three.txt") == "三"
    assert sbx.files.get_info(f"{udir}/nested/two.bin").owner == USER


def test_read_missing_file_raises_file_not_found(sbx, udir):
    with pytest.raises(FileNotFoundException) as exc:
        sbx.files.read(f"{udir}/missing.txt")
    assert isinstance(exc.value, NotFoundException)
    with pytest.raises(FileNotFoundException):
        sbx.files.read(f"{udir}/missing.txt", format="bytes")


def test_read_directory_is_invalid_argument(sbx, udir):
    with pytest.raises(InvalidArgumentException):
        sbx.files.read(udir)


# --- list -------------------------------------------------------------------


@pytest.fixture
def tree(sbx, udir):
    sbx.files.write_files(
        [
            {"path": f"{udir}/a.txt", "data": "hello"},
            {"path": f"{udir}/sub/b.txt", "data": "bb"},
            {"path": f"{udir}/sub/deeper/c.txt", "data": "c"},
        ],
        user=USER,
    )
    assert sbx.files.make_dir(f"{udir}/zdir", user=USER) is True
    return udir


def test_list_depth_1(sbx, tree):
    expected = [
        ("a.txt", FileType.FILE, f"{tree}/a.txt"),
        ("sub", FileType.DIR, f"{tree}/sub"),
        ("zdir", FileType.DIR, f"{tree}/zdir"),
    ]
    assert entries(sbx.files.list(tree)) == expected
    assert entries(sbx.files.list(tree, depth=1)) == expected


def test_list_depth_2_and_3_walk_in_lexical_preorder(sbx, tree):
    assert entries(sbx.files.list(tree, depth=2)) == [
        ("a.txt", FileType.FILE, f"{tree}/a.txt"),
        ("sub", FileType.DIR, f"{tree}/sub"),
        ("b.txt", FileType.FILE, f"{tree}/sub/b.txt"),
        ("deeper", FileType.DIR, f"{tree}/sub/deeper"),
        ("zdir", FileType.DIR, f"{tree}/zdir"),
    ]
    assert entries(sbx.files.list(tree, depth=3)) == [
        ("a.txt", FileType.FILE, f"{tree}/a.txt"),
        ("sub", FileType.DIR, f"{tree}/sub"),
        ("b.txt", FileType.FILE, f"{tree}/sub/b.txt"),
        ("deeper", FileType.DIR, f"{tree}/sub/deeper"),
        ("c.txt", FileType.FILE, f"{tree}/sub/deeper/c.txt"),
        ("zdir", FileType.DIR, f"{tree}/zdir"),
    ]


def test_list_depth_none_means_1(sbx, tree):
    # The SDK sends depth 0, which envd treats as 1.
    assert entries(sbx.files.list(tree, depth=None)) == entries(sbx.files.list(tree))


def test_list_through_a_symlinked_dir_keeps_the_requested_prefix(sbx, tree):
    link = f"{tree}-link"
    sbx.commands.run(f"ln -sfn {tree} {link}", user=USER)
    try:
        assert entries(sbx.files.list(link)) == [
            ("a.txt", FileType.FILE, f"{link}/a.txt"),
            ("sub", FileType.DIR, f"{link}/sub"),
            ("zdir", FileType.DIR, f"{link}/zdir"),
        ]
    finally:
        sbx.files.remove(link)
    # Removing the link leaves its target alone.
    assert sbx.files.exists(f"{tree}/a.txt") is True


def test_list_entry_fields(sbx, tree):
    by_name = {e.name: e for e in sbx.files.list(tree)}
    a, sub = by_name["a.txt"], by_name["sub"]
    assert (a.size, a.mode, a.permissions, a.owner, a.group) == (
        5,
        0o644,
        "-rw-r--r--",
        USER,
        USER,
    )
    assert (sub.mode, sub.permissions, sub.owner, sub.group) == (
        0o755,
        "drwxr-xr-x",
        USER,
        USER,
    )
    assert a.symlink_target is None
    assert a.metadata is None


def test_list_empty_dir(sbx, tree):
    assert sbx.files.list(f"{tree}/zdir") == []


def test_list_relative_path_keeps_home_prefix(sbx, tree):
    rel = tree[len(USER_HOME) + 1 :]
    assert entries(sbx.files.list(rel, user=USER)) == entries(sbx.files.list(tree))


def test_list_missing_and_not_a_directory(sbx, udir):
    with pytest.raises(FileNotFoundException):
        sbx.files.list(f"{udir}/nope")
    sbx.files.write(f"{udir}/file.txt", "x")
    with pytest.raises(InvalidArgumentException):
        sbx.files.list(f"{udir}/file.txt")


def test_list_skips_dangling_symlinks(sbx, udir):
    sbx.files.write(f"{udir}/target.txt", "t")
    sbx.commands.run(
        f"ln -s {udir}/target.txt {udir}/good && ln -s {udir}/gone {udir}/dangling",
        user=USER,
    )
    assert [e.name for e in sbx.files.list(udir)] == ["good", "target.txt"]


# --- exists / get_info --------------------------------------------------------


def test_exists(sbx, udir):
    sbx.files.write(f"{udir}/there.txt", "x")
    assert sbx.files.exists(f"{udir}/there.txt") is True
    assert sbx.files.exists(udir) is True
    assert sbx.files.exists(f"{udir}/not-there") is False
    assert sbx.files.exists("/definitely/not/there") is False


def test_get_info_file_as_user(sbx, udir):
    path = f"{udir}/info.txt"
    before = datetime.now(timezone.utc)
    sbx.files.write(path, "1234567", user=USER)
    info = sbx.files.get_info(path)
    assert (info.name, info.type, info.path, info.size) == (
        "info.txt",
        FileType.FILE,
        path,
        7,
    )
    assert (info.mode, info.permissions) == (0o644, "-rw-r--r--")
    assert (info.owner, info.group) == (USER, USER)
    assert info.symlink_target is None
    assert info.metadata is None
    assert before - timedelta(seconds=5) <= info.modified_time
    assert info.modified_time <= datetime.now(timezone.utc) + timedelta(seconds=5)


def test_get_info_file_as_root(sbx, udir):
    path = f"{udir}/root.txt"
    sbx.files.write(path, "r", user="root")
    info = sbx.files.get_info(path, user="root")
    assert (info.owner, info.group, info.mode) == ("root", "root", 0o644)


def test_get_info_directory(sbx, udir):
    info = sbx.files.get_info(udir)
    name = udir.rsplit("/", 1)[1]
    assert (info.name, info.type, info.path) == (name, FileType.DIR, udir)
    assert (info.mode, info.permissions, info.owner, info.group) == (
        0o755,
        "drwxr-xr-x",
        USER,
        USER,
    )


def test_get_info_special_mode_bits(sbx, udir):
    sbx.commands.run(f"mkdir {udir}/sticky && chmod 1777 {udir}/sticky", user="root")
    info = sbx.files.get_info(f"{udir}/sticky")
    # mode carries the permission bits only; permissions is Go's FileMode.String().
    assert (info.mode, info.permissions) == (0o777, "dtrwxrwxrwx")


def test_get_info_symlink(sbx, udir):
    sbx.files.write(f"{udir}/real.txt", "real!")
    sbx.commands.run(f"ln -s real.txt {udir}/link", user=USER)
    info = sbx.files.get_info(f"{udir}/link")
    assert (info.name, info.path) == ("link", f"{udir}/link")
    # SDK 2.63 shows SYMLINK when envd sets is_symlink (EntryInfo field 12).
    assert info.type == FileType.SYMLINK
    assert info.symlink_target == f"{udir}/real.txt"
    assert info.size == len("real.txt")
    assert info.permissions == "Lrwxrwxrwx"
    # For a symlink, mode is the target's permission bits.
    assert info.mode == 0o644


def test_get_info_missing(sbx, udir):
    with pytest.raises(FileNotFoundException):
        sbx.files.get_info(f"{udir}/missing")


# --- make_dir / rename / remove ----------------------------------------------


def test_make_dir_true_then_false(sbx, udir):
    path = f"{udir}/newdir"
    assert sbx.files.make_dir(path) is True
    assert sbx.files.make_dir(path) is False
    assert sbx.files.get_info(path).type == FileType.DIR


def test_make_dir_creates_parents_owned_by_user(sbx, udir):
    assert sbx.files.make_dir(f"{udir}/x/y/z", user=USER) is True
    for d in ("x", "x/y", "x/y/z"):
        info = sbx.files.get_info(f"{udir}/{d}")
        assert (info.type, info.mode, info.owner, info.group) == (
            FileType.DIR,
            0o755,
            USER,
            USER,
        )
    assert sbx.files.make_dir(f"{udir}/x/y", user=USER) is False


def test_make_dir_as_root_is_owned_by_root(sbx, udir):
    assert sbx.files.make_dir(f"{udir}/rootdir", user="root") is True
    info = sbx.files.get_info(f"{udir}/rootdir")
    assert (info.owner, info.group) == ("root", "root")


def test_make_dir_over_a_file_is_invalid_argument(sbx, udir):
    sbx.files.write(f"{udir}/afile", "x")
    with pytest.raises(InvalidArgumentException):
        sbx.files.make_dir(f"{udir}/afile")


def test_rename_file(sbx, udir):
    sbx.files.write(f"{udir}/old.txt", "moved content")
    info = sbx.files.rename(f"{udir}/old.txt", f"{udir}/new.txt")
    assert (info.name, info.type, info.path) == ("new.txt", FileType.FILE, f"{udir}/new.txt")
    assert info.size == len("moved content")
    assert sbx.files.exists(f"{udir}/old.txt") is False
    assert sbx.files.read(f"{udir}/new.txt") == "moved content"


def test_rename_into_new_parent_and_over_existing(sbx, udir):
    sbx.files.write(f"{udir}/src.txt", "src")
    info = sbx.files.rename(f"{udir}/src.txt", f"{udir}/made/up/dst.txt")
    assert info.path == f"{udir}/made/up/dst.txt"
    assert sbx.files.get_info(f"{udir}/made/up").type == FileType.DIR
    # rename(2) replaces an existing target.
    sbx.files.write(f"{udir}/other.txt", "other")
    sbx.files.rename(f"{udir}/other.txt", f"{udir}/made/up/dst.txt")
    assert sbx.files.read(f"{udir}/made/up/dst.txt") == "other"


def test_rename_directory(sbx, udir):
    sbx.files.write(f"{udir}/d1/inner.txt", "in")
    info = sbx.files.rename(f"{udir}/d1", f"{udir}/d2")
    assert (info.name, info.type, info.path) == ("d2", FileType.DIR, f"{udir}/d2")
    assert sbx.files.read(f"{udir}/d2/inner.txt") == "in"
    assert sbx.files.exists(f"{udir}/d1") is False


def test_rename_missing_source(sbx, udir):
    with pytest.raises(FileNotFoundException):
        sbx.files.rename(f"{udir}/nope", f"{udir}/still-nope")


def test_remove(sbx, udir):
    sbx.files.write(f"{udir}/f.txt", "x")
    sbx.files.write(f"{udir}/d/e/g.txt", "y")
    assert sbx.files.remove(f"{udir}/f.txt") is None
    assert sbx.files.exists(f"{udir}/f.txt") is False
    sbx.files.remove(f"{udir}/d")  # recursive
    assert sbx.files.exists(f"{udir}/d") is False
    # Removing a missing path succeeds silently.
    assert sbx.files.remove(f"{udir}/never-existed") is None
    assert sbx.files.remove(f"{udir}/d/e/g.txt") is None


# --- metadata (X-Metadata-* headers, EntryInfo.metadata; envd >= 0.6.2) --------


def test_write_with_metadata(sbx, envd, udir):
    path = f"{udir}/meta.txt"
    info = sbx.files.write(path, "m", metadata={"Project": "dsh", "run-id": "42 x"})
    expected = {"project": "dsh", "run-id": "42 x"}  # keys are lowercased
    assert info == WriteInfo(name="meta.txt", type=FileType.FILE, path=path, metadata=expected)
    assert sbx.files.get_info(path).metadata == expected
    assert {e.name: e.metadata for e in sbx.files.list(udir)} == {"meta.txt": expected}
    # Stored as user.e2b.<key> extended attributes.
    on_host = host_path(envd, path)
    assert sorted(os.listxattr(on_host)) == ["user.e2b.project", "user.e2b.run-id"]
    assert os.getxattr(on_host, "user.e2b.project") == b"dsh"
    # A new metadata set replaces the old one.
    again = sbx.files.write(path, "m2", metadata={"other": "1"})
    assert again.metadata == {"other": "1"}
    assert sbx.files.get_info(path).metadata == {"other": "1"}


def test_write_files_applies_metadata_to_every_file(sbx, udir):
    infos = sbx.files.write_files(
        [{"path": f"{udir}/m1", "data": "1"}, {"path": f"{udir}/m2", "data": "2"}],
        metadata={"k": "v"},
    )
    assert [i.metadata for i in infos] == [{"k": "v"}, {"k": "v"}]
    assert sbx.files.get_info(f"{udir}/m2").metadata == {"k": "v"}


def test_metadata_visible_after_rename(sbx, udir):
    sbx.files.write(f"{udir}/a", "x", metadata={"tag": "keep"})
    assert sbx.files.rename(f"{udir}/a", f"{udir}/b").metadata == {"tag": "keep"}


# --- watch_dir ----------------------------------------------------------------


def normalize(events):
    """(name, type) pairs without CHMOD (envd chowns what it creates, which
    inotify reports as IN_ATTRIB) and with consecutive duplicates collapsed
    (one WRITE per write(2) call)."""
    out = []
    for e in events:
        if e.type == FilesystemEventType.CHMOD:
            continue
        pair = (e.name, e.type)
        if not out or out[-1] != pair:
            out.append(pair)
    return out


def _drive_changes(sbx, d):
    sbx.files.write(f"{d}/new.txt", "hello")
    sbx.files.write(f"{d}/new.txt", "hello again")
    assert sbx.files.make_dir(f"{d}/subdir") is True
    sbx.files.remove(f"{d}/new.txt")


EXPECTED_EVENTS = [
    ("new.txt", CREATE),
    ("new.txt", WRITE),
    ("subdir", CREATE),
    ("new.txt", REMOVE),
]


def test_watch_dir_sync_polling(sbx, udir):
    handle = sbx.files.watch_dir(udir)
    try:
        _drive_changes(sbx, udir)
        events = []

        def done():
            events.extend(handle.get_new_events())
            return events and events[-1].name == "new.txt" and events[-1].type == REMOVE

        wait_until(done, timeout=5)
        assert normalize(events) == EXPECTED_EVENTS
        assert all(e.entry is None for e in events)
        # Events are handed out once.
        assert handle.get_new_events() == []
    finally:
        handle.stop()
    with pytest.raises(SandboxException):
        handle.get_new_events()


def test_watch_dir_sync_recursive(sbx, udir):
    assert sbx.files.make_dir(f"{udir}/inner") is True
    flat = sbx.files.watch_dir(udir)
    deep = sbx.files.watch_dir(udir, recursive=True)
    try:
        sbx.files.write(f"{udir}/inner/f.txt", "x")
        sbx.files.remove(f"{udir}/inner/f.txt")
        events = []

        def done():
            events.extend(deep.get_new_events())
            return events and events[-1].type == REMOVE

        wait_until(done, timeout=5)
        assert normalize(events) == [
            ("inner/f.txt", CREATE),
            ("inner/f.txt", WRITE),
            ("inner/f.txt", REMOVE),
        ]
        # A non-recursive watch sees nothing below the first level.
        assert [e for e in flat.get_new_events() if e.name != "inner"] == []
    finally:
        flat.stop()
        deep.stop()


def test_watch_dir_include_entry(sbx, udir):
    handle = sbx.files.watch_dir(udir, include_entry=True)
    try:
        sbx.files.write(f"{udir}/e.txt", "entry", user=USER)
        sbx.files.remove(f"{udir}/e.txt")
        events = []

        def done():
            events.extend(handle.get_new_events())
            return events and events[-1].type == REMOVE

        wait_until(done, timeout=5)
        create = next(e for e in events if e.type == CREATE)
        assert create.name == "e.txt"
        assert create.entry is not None
        assert (create.entry.name, create.entry.type, create.entry.path) == (
            "e.txt",
            FileType.FILE,
            f"{udir}/e.txt",
        )
        # Never an entry for REMOVE.
        assert events[-1].entry is None
    finally:
        handle.stop()


def test_watch_dir_missing_or_file(sbx, udir):
    with pytest.raises(FileNotFoundException):
        sbx.files.watch_dir(f"{udir}/missing")
    sbx.files.write(f"{udir}/plain", "x")
    with pytest.raises(InvalidArgumentException):
        sbx.files.watch_dir(f"{udir}/plain")


def test_watch_dir_async_stream(envd, udir):
    async def main():
        sandbox = await AsyncSandbox.create()
        events = []
        exits = []
        handle = await sandbox.files.watch_dir(
            udir, on_event=events.append, on_exit=exits.append, timeout=30
        )
        try:
            await sandbox.files.write(f"{udir}/new.txt", "hello")
            await sandbox.files.write(f"{udir}/new.txt", "hello again")
            assert await sandbox.files.make_dir(f"{udir}/subdir") is True
            await sandbox.files.remove(f"{udir}/new.txt")
            for _ in range(100):
                if events and events[-1].type == REMOVE:
                    break
                await asyncio.sleep(0.05)
        finally:
            await handle.stop()
        assert normalize(events) == EXPECTED_EVENTS
        assert exits == [None]

    asyncio.run(main())


def test_watch_dir_async_timeout_ends_the_watch(envd, udir):
    async def main():
        sandbox = await AsyncSandbox.create()
        exits = []
        handle = await sandbox.files.watch_dir(
            udir, on_event=lambda e: None, on_exit=exits.append, timeout=1
        )
        try:
            for _ in range(200):
                if exits:
                    break
                await asyncio.sleep(0.05)
        finally:
            await handle.stop()
        assert len(exits) == 1 and isinstance(exits[0], TimeoutException), exits

    asyncio.run(main())


def test_watch_dir_async_missing_dir(envd, udir):
    async def main():
        sandbox = await AsyncSandbox.create()
        with pytest.raises(FileNotFoundException):
            await sandbox.files.watch_dir(f"{udir}/missing", on_event=lambda e: None)

    asyncio.run(main())


def test_async_files_round_trip(envd, udir):
    async def main():
        sandbox = await AsyncSandbox.create()
        path = f"{udir}/async.bin"
        info = await sandbox.files.write(path, BINARY)
        assert info == WriteInfo(name="async.bin", type=FileType.FILE, path=path)
        assert await sandbox.files.read(path, format="bytes") == bytearray(BINARY)
        assert await sandbox.files.exists(path) is True
        assert [e.name for e in await sandbox.files.list(udir)] == ["async.bin"]
        with pytest.raises(FileNotFoundException):
            await sandbox.files.read(f"{udir}/nope")

    asyncio.run(main())
