"""Refusals of tool-executor (rendered in the caller's language)."""

from __future__ import annotations

from bkn_common.contracts.i18n import register_messages


class ExecCode:
    CAPABILITY_NOT_MOUNTED = "capability_not_mounted"
    TOOL_NOT_FOUND = "tool_not_found"
    PROXY_NOT_SYNCED = "proxy_not_synced"
    OWNER_UNPUBLISHED = "owner_unpublished"
    TOOL_DISABLED = "tool_disabled"
    UPSTREAM_TIMEOUT = "upstream_timeout"
    SKILL_NOT_FOUND = "skill_not_found"
    SKILL_FILE_NOT_FOUND = "skill_file_not_found"
    PATH_TRAVERSAL = "path_traversal"
    NETWORK_NOT_FOUND = "network_not_found"
    # why a sandboxed function or skill failed (domain/sandbox.py SandboxReason)
    FUNCTION_FAILED = "function_failed"
    SANDBOX_CPU_LIMIT = "sandbox_cpu_limit"
    SANDBOX_MEMORY_LIMIT = "sandbox_memory_limit"
    SANDBOX_PROCESS_LIMIT = "sandbox_process_limit"
    SANDBOX_OUTPUT_LIMIT = "sandbox_output_limit"
    SANDBOX_KILLED = "sandbox_killed"


register_messages(
    {
        ExecCode.CAPABILITY_NOT_MOUNTED: {
            "zh-CN": "能力 {capability} 未挂载到知识网络 {kn_id}，不能执行；请用 search_capabilities 在该网络内重新检索。",
            "en-US": "Capability {capability} is not mounted on knowledge network {kn_id}, so it cannot run; search again with search_capabilities in that network.",
        },
        ExecCode.TOOL_NOT_FOUND: {
            "zh-CN": "工具 {capability} 不存在于执行工厂的目录中。",
            "en-US": "Tool {capability} does not exist in the execution factory's catalogue.",
        },
        ExecCode.PROXY_NOT_SYNCED: {
            "zh-CN": "知识网络 {kn_id} 的托管代理尚未同步，暂不能执行工具；请等待同步完成或联系管理员。",
            "en-US": "The hosted proxy of knowledge network {kn_id} is not synced yet, so tools cannot run; wait for the sync or contact an administrator.",
        },
        ExecCode.OWNER_UNPUBLISHED: {
            "zh-CN": "{owner_kind} {owner_id} 未发布（{state}），其工具不能执行。这是发布状态问题，不是权限问题。",
            "en-US": "{owner_kind} {owner_id} is not published ({state}), so its tools cannot run. This is a publish-state issue, not a permission issue.",
        },
        ExecCode.TOOL_DISABLED: {
            "zh-CN": "工具 {capability} 已停用（{state}），不能执行。",
            "en-US": "Tool {capability} is disabled ({state}) and cannot run.",
        },
        ExecCode.UPSTREAM_TIMEOUT: {
            "zh-CN": "上游工具在 {seconds} 秒内未响应，已中止。",
            "en-US": "The upstream tool did not answer within {seconds} s; the call was aborted.",
        },
        ExecCode.SKILL_NOT_FOUND: {
            "zh-CN": "Skill {skill_id} 不存在或未挂载到知识网络 {kn_id}。",
            "en-US": "Skill {skill_id} does not exist or is not mounted on knowledge network {kn_id}.",
        },
        ExecCode.SKILL_FILE_NOT_FOUND: {
            "zh-CN": "Skill {skill_id} 中没有文件 {path}。",
            "en-US": "Skill {skill_id} has no file {path}.",
        },
        ExecCode.PATH_TRAVERSAL: {
            "zh-CN": "路径 {path} 不合法：只能读取 Skill 目录内的相对路径。",
            "en-US": "Path {path} is not allowed: only relative paths inside the skill folder can be read.",
        },
        ExecCode.NETWORK_NOT_FOUND: {
            "zh-CN": "知识网络 {kn_id} 不存在。",
            "en-US": "Knowledge network {kn_id} does not exist.",
        },
        ExecCode.FUNCTION_FAILED: {
            "zh-CN": "工具代码执行失败（退出码 {exit_code}）；详见 stderr。",
            "en-US": "The tool's code failed (exit code {exit_code}); see stderr.",
        },
        ExecCode.SANDBOX_CPU_LIMIT: {
            "zh-CN": "工具代码用尽了 {cpu_seconds} 秒的 CPU 时间限制，已被沙箱终止。",
            "en-US": "The tool's code used up its {cpu_seconds} s CPU-time limit and was stopped by the sandbox.",
        },
        ExecCode.SANDBOX_MEMORY_LIMIT: {
            "zh-CN": "工具代码超出了 {memory_mb} MB 的内存限制，分配被沙箱拒绝。",
            "en-US": "The tool's code went over its {memory_mb} MB memory limit; the sandbox refused the allocation.",
        },
        ExecCode.SANDBOX_PROCESS_LIMIT: {
            "zh-CN": "工具代码超出了 {max_processes} 个进程的限制，沙箱拒绝创建更多进程。",
            "en-US": "The tool's code went over its limit of {max_processes} processes; the sandbox refused to start more.",
        },
        ExecCode.SANDBOX_OUTPUT_LIMIT: {
            "zh-CN": "工具代码的输出超出限制（结果最多 {limit_chars} 个字符，输出总量最多 {limit_bytes} 字节），已被沙箱截断或终止。",
            "en-US": "The tool's output went over its limit ({limit_chars} characters of result, {limit_bytes} bytes in all); the sandbox cut or stopped it.",
        },
        ExecCode.SANDBOX_KILLED: {
            "zh-CN": "工具代码被信号 {signal} 终止。",
            "en-US": "The tool's code was ended by signal {signal}.",
        },
    }
)
