"""What providers share when they project an agent's home: links to files and skills.

Wardian keeps an agent's skills in `.agents/skills/<name>` of its include roots (common,
class, agent; later wins); each CLI looks for them somewhere of its own, and a provider
links them there with these.
"""

import os
from pathlib import Path

from wardian_core.paths import check_inside
from wardian_core.provider_models import SpawnContext

SKILLS_FOLDER = Path(".agents") / "skills"


def link(source: Path, target: Path, inside: Path | None = None) -> None:
    """Point `target` at `source` (relative to `target`'s folder when not absolute), replacing a
    stale link; a real file or folder there stays. With `inside` (the Wardian home), a target
    whose folder resolves outside it is refused (`unauthorized`), before any folder is made."""
    if inside is not None:
        check_inside(inside, target.parent)
    if target.is_symlink():
        if Path(os.readlink(target)) == source:
            return
        target.unlink()
    elif target.exists():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    pointed = source if source.is_absolute() else target.parent / source
    target.symlink_to(source, target_is_directory=pointed.is_dir())


def assigned_skills(include_roots: list[Path]) -> dict[str, Path]:
    """Skill name → folder, from `.agents/skills/<name>` of each include root (later wins)."""
    skills: dict[str, Path] = {}
    for root in include_roots:
        folder = root / SKILLS_FOLDER
        if folder.is_dir():
            for skill in sorted(folder.iterdir()):
                if skill.is_dir() and not skill.name.startswith("."):
                    skills[skill.name] = skill
    return skills


def include_args(ctx: SpawnContext, flag: str) -> list[str]:
    """`flag folder` for each folder the agent reads beside its workspace, for a CLI that takes
    them as arguments: its include roots, then the launch's include dirs, those that exist (a CLI
    refuses a missing one)."""
    args = []
    for folder in [*ctx.include_roots, *ctx.launch.include_dirs]:
        if folder.is_dir():
            args += [flag, str(folder)]
    return args


def link_skills(skills: dict[str, Path], skills_dir: Path) -> None:
    """Make `skills_dir` hold a link per skill, and drop the links Wardian made for skills gone.

    Only links are removed: a CLI's own folders there (`.system`, …) stay."""
    skills_dir.mkdir(parents=True, exist_ok=True)
    for entry in skills_dir.iterdir():
        if entry.is_symlink() and entry.name not in skills:
            entry.unlink()
    for name, folder in skills.items():
        link(folder.resolve(), skills_dir / name)
