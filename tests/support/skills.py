"""Writing a skill folder the way a user keeps one in a project."""

from __future__ import annotations

BODY = "Step {n}: check the migration for locks and long rewrites on large tables.\n"


SKILL = (
    "---\nname: db-migrations\ndescription: Reviewing database migrations (locks, rewrites, "
    "rollbacks)\n---\n# Migrations\n" + "".join(BODY.format(n=n) for n in range(60))
)


def write_skill(folder, name="db-migrations", text=SKILL):
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    (path.parent / "checklist.md").write_text("- lock_timeout set\n")
    return path
