"""Skills mounted on a network: list, read, read a file, run (in the sandbox)."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.contracts.i18n import DEFAULT_LANGUAGE, Language
from tool_executor.domain.errors import ExecCode
from tool_executor.domain.sandbox import SandboxLimits, SandboxReason, failure_reason
from tool_executor.service_layer.execution_authorisation import ExecutionAuthorisation
from tool_executor.service_layer.projection import FactoryState
from tool_executor.service_layer.sandbox import Sandbox, sandbox_error

MAX_CONTENT_CHARS = 40_000
MAX_FILE_BYTES = 5 * 1024 * 1024
CONTENT_FILES = ("SKILL.md", "README.md", "skill.md", "readme.md")


class SkillService:
    def __init__(self, state: FactoryState, sandbox: Sandbox, limits: SandboxLimits) -> None:
        self.state = state
        self._authorisation = ExecutionAuthorisation(state)
        self._sandbox = sandbox
        self._limits = limits  # skills declare no limits of their own (and get no network)

    def _mounted_skill(self, kn_id: str, skill_id: str, account: str) -> ev.SkillUpserted:
        self._authorisation.require_network_permission(kn_id, account, "view_detail")
        ref = ev.CapabilityRef(capability_type="skill", capability_id=skill_id)
        skill = self.state.catalog.skills.get(skill_id)
        if skill is None or not self.state.catalog.is_bound(kn_id, ref):
            raise ApiError(ExecCode.SKILL_NOT_FOUND, 404, params={"skill_id": skill_id, "kn_id": kn_id})
        return skill

    def list_skills(self, kn_id: str, account: str) -> dict[str, Any]:
        self._authorisation.require_network_permission(kn_id, account, "view_detail")
        skills = []
        for ref in self.state.catalog.mounted(kn_id):
            skill = self.state.catalog.skills.get(ref.capability_id)
            if ref.capability_type == "skill" and skill is not None:
                skills.append({
                    "skill_id": skill.id, "name": skill.name, "description": skill.description,
                    "category": skill.category, "use_rule": skill.use_rule, "entry": skill.entry,
                    "files": sorted(skill.files),
                })
        return {"skills": skills, "total": len(skills)}

    def get_content(self, kn_id: str, skill_id: str, account: str) -> dict[str, Any]:
        skill = self._mounted_skill(kn_id, skill_id, account)
        main = next((name for name in CONTENT_FILES if name in skill.files), None)
        content, truncated = _truncate(skill.files[main]) if main else ("", False)
        return {
            "skill_id": skill.id, "name": skill.name, "description": skill.description,
            "use_rule": skill.use_rule, "entry": skill.entry, "files": sorted(skill.files),
            "content_file": main, "content": content, "truncated": truncated,
        }

    def read_file(self, kn_id: str, skill_id: str, path: str, account: str) -> dict[str, Any]:
        skill = self._mounted_skill(kn_id, skill_id, account)
        normalized = _safe_path(path)
        text = skill.files.get(normalized)
        if text is None:
            raise ApiError(ExecCode.SKILL_FILE_NOT_FOUND, 404, params={"skill_id": skill_id, "path": path})
        size = len(text.encode())
        if size > MAX_FILE_BYTES:
            raise ApiError(
                ErrorCode.PAYLOAD_TOO_LARGE, 413,
                params={"reason": f"{path} is {size} bytes, over the 5 MiB limit"},
                details={"size_bytes": size, "limit_bytes": MAX_FILE_BYTES},
            )
        content, truncated = _truncate(text)
        return {"skill_id": skill_id, "path": normalized, "content": content,
                "truncated": truncated, "size_bytes": size}

    async def execute(
        self, kn_id: str, skill_id: str, args: list[str], account: str,
        language: Language = DEFAULT_LANGUAGE,
    ) -> dict[str, Any]:
        """Run the skill's entry; a non-zero exit is the skill's answer, a limit adds ``error``."""
        skill = self._mounted_skill(kn_id, skill_id, account)
        result = await self._sandbox.run_skill(skill.files, skill.entry, args, self._limits)
        answer: dict[str, Any] = {
            "skill_id": skill_id, "exit_code": result.exit_code, "stdout": result.stdout,
            "stderr": result.stderr, "stdout_truncated": result.stdout_truncated,
            "stderr_truncated": result.stderr_truncated, "timed_out": result.timed_out,
        }
        reason = failure_reason(result)
        if result.timed_out:
            answer["error"] = sandbox_error(ExecCode.UPSTREAM_TIMEOUT, self._limits, language,
                                            seconds=self._limits.wall_seconds)
        elif reason is not None and reason != SandboxReason.FUNCTION_FAILED:
            answer["error"] = sandbox_error(reason, self._limits, language)
        return answer


def _truncate(text: str) -> tuple[str, bool]:
    return (text[:MAX_CONTENT_CHARS], True) if len(text) > MAX_CONTENT_CHARS else (text, False)


def _safe_path(path: str) -> str:
    candidate = PurePosixPath(path.replace("\\", "/"))
    if candidate.is_absolute() or ".." in candidate.parts or not path.strip():
        raise ApiError(ExecCode.PATH_TRAVERSAL, 400, params={"path": path})
    return str(candidate)
