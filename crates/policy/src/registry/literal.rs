//! Literal values read straight from a compiled script's syntax tree, each with its source line,
//! so a policy's metadata is known without running any of its code.

use rhai::{Dynamic, Expr};

/// A literal value and the 1-based line it starts on (0 when Rhai gives no position).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Literal {
    pub line: usize,
    pub value: Value,
}

/// The shapes a policy constant can take.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Str(String),
    Int(i64),
    Bool(bool),
    Array(Vec<Literal>),
    /// Entries in source order: key, line of the key, value.
    Map(Vec<(String, usize, Literal)>),
    /// Another literal (a float, a char, `()`, ...): named by its type for error messages.
    Other(String),
}

impl Value {
    /// The type name used in error messages.
    pub(crate) fn type_name(&self) -> &str {
        match self {
            Value::Str(_) => "string",
            Value::Int(_) => "integer",
            Value::Bool(_) => "boolean",
            Value::Array(_) => "array",
            Value::Map(_) => "object map",
            Value::Other(name) => name,
        }
    }
}

/// Reads `expr` as a literal, or returns the line of the first part that is not one.
pub(crate) fn read(expr: &Expr) -> Result<Literal, usize> {
    let line = expr.position().line().unwrap_or(0);
    let value = match expr {
        Expr::StringConstant(text, _) => Value::Str(text.to_string()),
        Expr::IntegerConstant(number, _) => Value::Int(*number),
        Expr::BoolConstant(flag, _) => Value::Bool(*flag),
        Expr::Array(items, _) => Value::Array(items.iter().map(read).collect::<Result<_, _>>()?),
        Expr::Map(entries, _) => Value::Map(
            entries
                .0
                .iter()
                .map(|(key, value)| {
                    Ok::<_, usize>((
                        key.name.to_string(),
                        key.pos.line().unwrap_or(line),
                        read(value)?,
                    ))
                })
                .collect::<Result<_, _>>()?,
        ),
        Expr::DynamicConstant(value, _) => from_dynamic(value, line),
        Expr::InterpolatedString(..)
        | Expr::FloatConstant(..)
        | Expr::CharConstant(..)
        | Expr::Unit(..) => match expr.get_literal_value(None) {
            Some(value) => from_dynamic(&value, line),
            None => return Err(line),
        },
        _ => return Err(line),
    };
    Ok(Literal { line, value })
}

fn from_dynamic(value: &Dynamic, line: usize) -> Value {
    if let Some(text) = value.read_lock::<rhai::ImmutableString>() {
        return Value::Str(text.to_string());
    }
    if let Ok(number) = value.as_int() {
        return Value::Int(number);
    }
    if let Ok(flag) = value.as_bool() {
        return Value::Bool(flag);
    }
    if value.is_array()
        && let Some(items) = value.read_lock::<rhai::Array>()
    {
        return Value::Array(
            items
                .iter()
                .map(|v| Literal {
                    line,
                    value: from_dynamic(v, line),
                })
                .collect(),
        );
    }
    if value.is_map()
        && let Some(map) = value.read_lock::<rhai::Map>()
    {
        return Value::Map(
            map.iter()
                .map(|(k, v)| {
                    (
                        k.to_string(),
                        line,
                        Literal {
                            line,
                            value: from_dynamic(v, line),
                        },
                    )
                })
                .collect(),
        );
    }
    Value::Other(value.type_name().to_owned())
}
