//! The texts a rule gives each of its findings — its id, its note, and its message when the
//! message has no metavariable to fill in — made once per rule set and shared by reference
//! ([`SharedText`]), so holding many findings of a rule holds these texts once.

use ast_grep_config::RuleConfig;
use ast_grep_language::SupportLang;
use pi_native_hooks_base::{RuleId, SharedText};
use std::collections::HashMap;

/// One rule's shared texts.
#[derive(Clone, Debug)]
pub(crate) struct RuleTexts {
    pub(crate) id: RuleId,
    /// The message, when every match gets the same one (no `$` metavariable, one line); `None`
    /// when each match's message is made from its template.
    pub(crate) message: Option<SharedText>,
    pub(crate) note: Option<SharedText>,
}

impl RuleTexts {
    /// The texts of `rule`.
    pub(crate) fn of(rule: &RuleConfig<SupportLang>) -> Self {
        // Only a template without a metavariable renders as itself; a multi-line one could be
        // re-indented by ast-grep's template expansion, so it is rendered per match too.
        let constant = !rule.message.contains('$') && !rule.message.contains('\n');
        Self {
            id: RuleId::from(rule.id.as_str()),
            message: constant.then(|| SharedText::from(rule.message.as_str())),
            note: rule.note.as_deref().map(SharedText::from),
        }
    }
}

/// The shared texts of every rule of a rule set, by rule id.
#[derive(Default)]
pub(crate) struct RuleTextIndex(HashMap<String, RuleTexts>);

impl RuleTextIndex {
    /// Makes the texts of `rule`.
    pub(crate) fn add(&mut self, rule: &RuleConfig<SupportLang>) {
        self.0.insert(rule.id.clone(), RuleTexts::of(rule));
    }

    /// The texts of `rule`: the shared ones when the set has it, else made for it.
    pub(crate) fn get(&self, rule: &RuleConfig<SupportLang>) -> RuleTexts {
        self.0
            .get(&rule.id)
            .cloned()
            .unwrap_or_else(|| RuleTexts::of(rule))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_grep_config::{GlobalRules, SerializableRuleConfig};

    fn rule(message: &str) -> RuleConfig<SupportLang> {
        let yaml = format!(
            "id: r\nlanguage: TypeScript\nmessage: {message:?}\nnote: advice\nrule:\n  pattern: $A!\n"
        );
        let config: SerializableRuleConfig<SupportLang> =
            ast_grep_config::from_str(&yaml).expect("a valid rule");
        RuleConfig::try_from(config, &GlobalRules::default()).expect("a rule that compiles")
    }

    #[test]
    fn a_message_without_a_metavariable_is_shared_and_one_with_one_is_not() {
        let constant = RuleTexts::of(&rule("avoid the assertion"));
        assert_eq!(constant.message.as_deref(), Some("avoid the assertion"));
        assert_eq!(constant.note.as_deref(), Some("advice"));
        assert_eq!(constant.id, "r");
        assert!(RuleTexts::of(&rule("avoid $A!")).message.is_none());
        assert!(RuleTexts::of(&rule("one\ntwo")).message.is_none());
    }

    #[test]
    fn the_index_shares_one_text_between_lookups() {
        let rule = rule("avoid the assertion");
        let mut index = RuleTextIndex::default();
        index.add(&rule);
        let (a, b) = (index.get(&rule), index.get(&rule));
        let (a, b) = (a.note.expect("a note"), b.note.expect("a note"));
        assert!(std::ptr::eq(a.as_ptr(), b.as_ptr()));
    }
}
