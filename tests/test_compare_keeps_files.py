"""A re-run of ``planner compare`` into the same folder replaces its plan folders but never
deletes a file the user saved inside one (the rule of ``planner plan``'s swap)."""
from pathlib import Path

from planner.compare import _move_into_place
from planner.run.output import MANIFEST


def _plan_folder(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    (folder / MANIFEST).write_text("\n".join(sorted(files)) + "\n")


def test_previous_plan_folder_with_a_user_file_is_kept_beside(tmp_path):
    out, staging = tmp_path / "out", tmp_path / "out" / ".compare-x"
    _plan_folder(out / "sf", {"cables.csv": "old"})
    (out / "sf" / "my-notes.txt").write_text("mine")
    _plan_folder(out / "df", {"cables.csv": "old"})
    _plan_folder(staging / "sf", {"cables.csv": "new"})
    _plan_folder(staging / "df", {"cables.csv": "new"})
    (staging / "compare.xlsx").write_text("report")

    kept = _move_into_place(staging, out, ["sf", "df", "compare.xlsx"])

    assert (out / "sf" / "cables.csv").read_text() == "new"
    assert (out / "df" / "cables.csv").read_text() == "new"
    assert (out / "compare.xlsx").read_text() == "report"
    assert kept == [out / "sf.previous"]
    assert (out / "sf.previous" / "my-notes.txt").read_text() == "mine"
    assert not (out / "sf.previous" / "cables.csv").exists()   # the old plan's own file: gone
    assert not (out / "df.previous").exists()                  # nothing of the user's in df
