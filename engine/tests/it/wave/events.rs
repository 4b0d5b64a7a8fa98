//! The binding-facing event types: Pi's `tool_result` event read from JSON, and the patch a
//! handler returns — content plus one text block, `details`, `structuredContent` and `isError`
//! passed through (Pi drops `structuredContent` from a patch without it).

use pi_native_hooks::wave::{
    AssistantMessage, ExecutionMode, ResultDecision, ToolCatalog, ToolClass, ToolResultEvent,
};
use serde_json::json;
use std::path::{Path, PathBuf};

#[test]
fn a_bash_result_keeps_its_structured_content_and_error_flag() {
    let event: ToolResultEvent = serde_json::from_value(json!({
        "type": "tool_result",
        "toolCallId": "D",
        "toolName": "bash",
        "input": { "command": "exit 3" },
        "content": [{ "type": "text", "text": "Command exited with code 3" }],
        "isError": true,
        "structuredContent": { "output": "", "truncated": false, "exit_code": 3, "wall_time_seconds": 0.1 },
        "usage": {}
    }))
    .unwrap();
    assert_eq!(event.patch(&ResultDecision::Unchanged), None);
    let patch = event
        .patch(&ResultDecision::Append("[block]".into()))
        .unwrap();
    assert_eq!(
        serde_json::to_value(&patch).unwrap(),
        json!({
            "content": [
                { "type": "text", "text": "Command exited with code 3" },
                { "type": "text", "text": "[block]" }
            ],
            "structuredContent": { "output": "", "truncated": false, "exit_code": 3, "wall_time_seconds": 0.1 },
            "isError": true
        })
    );
}

#[test]
fn an_assistant_message_defaults_to_parallel() {
    let message: AssistantMessage = serde_json::from_value(json!({
        "calls": [{ "id": "A", "name": "write", "input": { "path": "a.ts" } }]
    }))
    .unwrap();
    assert_eq!(message.mode, ExecutionMode::Parallel);
    let sequential: AssistantMessage =
        serde_json::from_value(json!({ "calls": [], "mode": "sequential" })).unwrap();
    assert_eq!(sequential.mode, ExecutionMode::Sequential);
}

#[test]
fn tools_are_classified_by_name_and_target() {
    let catalog = ToolCatalog::default();
    let cwd = Path::new("/repo/sub");
    let class = |name: &str, input| catalog.classify(name, &input, cwd);
    assert_eq!(
        class("read", json!({ "path": "a.ts" })),
        ToolClass::ReadOnly
    );
    for name in ["grep", "find", "ls"] {
        assert_eq!(class(name, json!({})), ToolClass::ReadOnly);
    }
    assert_eq!(
        class("pi_hooks_waive_verification", json!({})),
        ToolClass::Own
    );
    assert_eq!(
        class("write", json!({ "path": "../src/./a.ts" })),
        ToolClass::Targeted {
            path: PathBuf::from("/repo/src/a.ts")
        }
    );
    assert_eq!(
        class("edit", json!({ "path": "/abs/b.ts" })),
        ToolClass::Targeted {
            path: PathBuf::from("/abs/b.ts")
        }
    );
    for (name, input) in [
        ("write", json!({})),
        ("edit", json!({ "path": "~/x.ts" })),
        ("write", json!({ "path": "  " })),
        ("bash", json!({ "command": "ls" })),
        ("deploy", json!({})),
    ] {
        let class = class(name, input);
        assert_eq!(class, ToolClass::Untargeted);
        assert!(class.is_mutating());
    }
    assert!(!ToolClass::ReadOnly.is_mutating() && !ToolClass::Own.is_mutating());
}
