use super::*;

#[test]
fn a_panic_inside_the_interpreter_is_contained() {
    let mut sandbox = Sandbox::default();
    sandbox
        .engine
        .register_fn("boom", || -> rhai::INT { panic!("boom inside rhai") });
    let ast = sandbox.compile("fn f() { boom() }").unwrap();
    let output = sandbox.call(&ast, "f", (), &CancelToken::new());
    assert_eq!(
        output.result.unwrap_err(),
        RunError::Panic("boom inside rhai".to_owned())
    );
    // The thread-local call state was restored: the next call works normally.
    assert_eq!(run(&sandbox, "fn f() { 41 + 1 }").unwrap().as_int(), Ok(42));
}

#[test]
fn the_deepest_recursion_the_limits_allow_fits_in_half_the_guaranteed_stack() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static LEAST_REMAINING: AtomicUsize = AtomicUsize::new(usize::MAX);
    let mut sandbox = Sandbox::default();
    sandbox.engine.register_fn("probe", || {
        if let Some(remaining) = stacker::remaining_stack() {
            LEAST_REMAINING.fetch_min(remaining, Ordering::Relaxed);
        }
    });
    // 31 nested calls (the call depth limit is 32), each inside as many parentheses as the
    // expression depth limit lets compile, measured at the bottom.
    let ast = (0..32)
        .rev()
        .find_map(|depth| {
            let nested = format!(
                "fn r(n) {{ if n > 0 {{ {}r(n - 1){} }} else {{ probe(); 0 }} }} fn f() {{ r(30) }}",
                "(".repeat(depth),
                ")".repeat(depth)
            );
            sandbox.compile(&nested).ok()
        })
        .unwrap();
    // A thread with a small stack: the call runs on a fresh policy stack.
    let used = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let result = sandbox.call(&ast, "f", (), &CancelToken::new()).result;
            assert_eq!(result.unwrap().as_int(), Ok(0));
            POLICY_STACK - LEAST_REMAINING.load(Ordering::Relaxed)
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(used < POLICY_STACK_MIN / 2, "used {used} bytes of stack");
    println!("the deepest recursion used {used} bytes of stack");
}

// Each sandbox limit stops a hostile script, and nothing outside the pure packages is
// reachable.
fn run(sandbox: &Sandbox, script: &str) -> Result<Dynamic, RunError> {
    let ast = sandbox.compile(script)?;
    sandbox.call(&ast, "f", (), &CancelToken::new()).result
}

fn limited(limits: SandboxLimits) -> Sandbox {
    Sandbox::new(limits)
}

fn limit_name(result: Result<Dynamic, RunError>) -> String {
    match result {
        Err(RunError::Limit { limit, .. }) => limit,
        other => panic!("expected a limit error, got {other:?}"),
    }
}

#[test]
fn infinite_loop_is_stopped_by_operations() {
    let sandbox = limited(SandboxLimits {
        max_operations: 50_000,
        deadline: Duration::from_secs(60),
        ..SandboxLimits::default()
    });
    assert_eq!(
        limit_name(run(&sandbox, "fn f() { loop { } }")),
        "operations"
    );
    assert_eq!(
        limit_name(run(&sandbox, "fn f() { for i in 0..1000000000 { } }")),
        "operations"
    );
}

#[test]
fn infinite_loop_is_stopped_by_the_deadline() {
    let sandbox = limited(SandboxLimits {
        max_operations: u64::MAX,
        deadline: Duration::from_millis(100),
        ..SandboxLimits::default()
    });
    let started = Instant::now();
    let result = run(&sandbox, "fn f() { let x = 0; loop { x += 1; } }");
    assert_eq!(
        result.unwrap_err(),
        RunError::Timeout(Duration::from_millis(100))
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn cancellation_stops_a_running_call() {
    let sandbox = limited(SandboxLimits {
        max_operations: u64::MAX,
        deadline: Duration::from_secs(60),
        ..SandboxLimits::default()
    });
    let ast = sandbox.compile("fn f() { loop { } }").unwrap();
    let cancel = CancelToken::new();
    let trigger = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        trigger.cancel();
    });
    let output = sandbox.call(&ast, "f", (), &cancel);
    canceller.join().unwrap();
    assert_eq!(output.result.unwrap_err(), RunError::Cancelled);
}

#[test]
fn deep_recursion_is_stopped_by_call_depth() {
    let sandbox = Sandbox::default();
    assert_eq!(
        limit_name(run(&sandbox, "fn r(n) { r(n + 1) } fn f() { r(0) }")),
        "call depth"
    );
}

#[test]
fn deep_expressions_are_refused_at_compile_time() {
    let sandbox = Sandbox::default();
    let nested = format!("fn f() {{ {}1{} }}", "(".repeat(200), ")".repeat(200));
    assert_eq!(
        limit_name(sandbox.compile(&nested).map(|_| Dynamic::UNIT)),
        "expression depth"
    );
}

#[test]
fn huge_strings_arrays_and_maps_are_stopped() {
    let sandbox = Sandbox::default();
    assert_eq!(
        limit_name(run(&sandbox, r#"fn f() { let s = "x"; loop { s += s; } }"#)),
        "length of string"
    );
    assert_eq!(
        limit_name(run(&sandbox, "fn f() { let a = [1]; loop { a += a; } }")),
        "size of array/blob"
    );
    assert_eq!(
        limit_name(run(&sandbox, r#"fn f() { "x".pad(100000000, "y") }"#)),
        "length of string"
    );
    let small = limited(SandboxLimits {
        max_map_size: 100,
        ..SandboxLimits::default()
    });
    assert_eq!(
        limit_name(run(
            &small,
            "fn f() { let m = #{}; for i in 0..1000 { m[i.to_string()] = i; } m }"
        )),
        "size of object map"
    );
}

#[test]
fn eval_and_import_do_not_compile() {
    let sandbox = Sandbox::default();
    // Refused by name where they are written, not by some later error about the script.
    for (source, message, column) in [
        (
            r#"fn f() { eval("40 + 2") }"#,
            "reserved keyword 'eval' is disabled",
            10,
        ),
        (
            r#"import "fs" as fs; fn f() { 1 }"#,
            "'import' is a reserved keyword",
            1,
        ),
        (
            r#"fn f() { import "fs" as fs; 1 }"#,
            "'import' is a reserved keyword",
            10,
        ),
    ] {
        assert_eq!(
            sandbox.compile(source).map(drop),
            Err(RunError::Script {
                message: message.to_owned(),
                line: Some(1),
                column: Some(column),
            }),
            "{source}"
        );
    }
}

#[test]
fn file_process_and_time_functions_do_not_exist() {
    let sandbox = Sandbox::default();
    for call in [
        r#"open_file("/etc/passwd")"#,
        r#"read_file("/etc/passwd")"#,
        r#"system("id")"#,
        r#"exec("id")"#,
        "sleep(1)",
        "timestamp()",
        r#"parse_json("{}")"#,
        "exit()",
    ] {
        match run(&sandbox, &format!("fn f() {{ {call} }}")) {
            Err(RunError::Script { message, .. }) => {
                assert!(message.contains("not found"), "{call}: {message}");
            }
            other => panic!("{call}: expected function not found, got {other:?}"),
        }
    }
}

#[test]
fn undeclared_variables_do_not_compile() {
    let sandbox = Sandbox::default();
    assert!(matches!(
        sandbox.compile("fn f() { x + 1 }"),
        Err(RunError::Script { line: Some(1), .. })
    ));
}

#[test]
fn const_mutation_does_not_panic() {
    // With rhai's default optimization level this panics inside rhai 1.27.
    let sandbox = Sandbox::default();
    let result = run(&sandbox, "fn f() { const Y = #{a: 1}; Y.a = 2; Y.a }");
    assert!(!matches!(result, Err(RunError::Panic(_))), "{result:?}");
    let result = run(&sandbox, "const Y = #{a: 1}; Y.a = 2; fn f() { 1 }");
    assert_eq!(result.unwrap().as_int(), Ok(1));
}

#[test]
fn print_and_debug_go_to_the_call_log() {
    let sandbox = limited(SandboxLimits {
        max_log_lines: 3,
        ..SandboxLimits::default()
    });
    let ast = sandbox
        .compile(
            "fn f() {\n print(\"hello\");\n debug(\"state\");\n for i in 0..10 { print(i) }\n 7 }",
        )
        .unwrap();
    let output = sandbox.call(&ast, "f", (), &CancelToken::new());
    assert_eq!(output.result.unwrap().as_int(), Ok(7));
    assert_eq!(
        output.log,
        vec![
            "hello".to_owned(),
            "[debug line 3] \"state\"".to_owned(),
            "0".to_owned(),
            // Dropped output is counted, never cut silently.
            "[9 more line(s), 9 bytes, not kept: the log keeps 3 lines and 16384 bytes per call]"
                .to_owned(),
        ]
    );
}

#[test]
fn pure_packages_are_available() {
    let sandbox = Sandbox::default();
    let value = run(
    &sandbox,
    r#"fn f() {
            let a = [3, 1, 2].map(|x| x * 2).filter(|x| x > 2);
            a.sort();
            let m = #{ k: "v" };
            `${a.len()}-${m.keys().len()}-${"abc".to_upper()}-${"a,b".split(",").len()}-${max(1, 2)}`
        }"#,
)
.unwrap();
    assert_eq!(value.into_string().unwrap(), "2-1-ABC-2-2");
}
