"""回显：原样返回 message 及其长度。"""


def handler(arguments: dict[str, object]) -> dict[str, object]:
    message = arguments.get("message")
    if not isinstance(message, str):
        raise ValueError("message 必须是字符串")
    return {"echo": message, "length": len(message)}
