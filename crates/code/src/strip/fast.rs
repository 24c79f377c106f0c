//! The fast stripping path: oxc's parser and our own eraser.
//!
//! swc allocates every AST node on the heap and frees it again, which caps it near
//! 20 MB/s on type-dense code here; oxc parses into an arena that is reset, not freed,
//! between programs. The eraser below walks oxc's AST and plans the same edits as the
//! reference eraser (`swc_ts_fast_strip`'s `erase` module): blank a type, blank a
//! modifier or marker, and put a `;` where erasing a declaration would let automatic
//! semicolon insertion join two statements.
//!
//! Anything outside the subset it handles makes it give up ([`Eraser::give_up`]), and the
//! reference strips that program instead: every parse error, `enum`, namespaces,
//! parameter properties, decorators, `<T>expr`, accessors, directives, and every
//! construct oxc's parser accepts but the reference refuses (oxc leaves many early
//! errors to a later pass, and takes some types the reference does not; each rule below
//! names its case, and `tests/strip_agreement.rs` holds one). Erased code (types,
//! interfaces, `declare` statements, signatures) is walked too, for those checks only.
//! Giving up is always correct; a wrong answer never is, so when in doubt the code gives
//! up.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    ArrowFunctionBody, ArrowFunctionExpression, AssignmentExpression, AssignmentPattern,
    AssignmentTarget, AwaitExpression, BinaryExpression, BindingIdentifier, BindingPattern,
    BreakStatement, Class, ClassBody, ClassElement, ConditionalExpression, ContinueStatement,
    Declaration, Decorator, DoWhileStatement, Expression, ExpressionStatement, ForInStatement,
    ForOfStatement, ForStatement, ForStatementInit, ForStatementLeft, FormalParameter,
    FormalParameters, Function, FunctionBody, IdentifierReference, IfStatement,
    JSDocNonNullableType, JSDocNullableType, JSDocUnknownType, LabeledStatement, LogicalExpression,
    MethodDefinition, MethodDefinitionKind, MethodDefinitionType, NumericLiteral, ObjectProperty,
    Program, PropertyDefinition, PropertyDefinitionType, PropertyKey, PropertyKind,
    SequenceExpression, SimpleAssignmentTarget, Statement, StringLiteral, SwitchStatement,
    TSAccessibility, TSAsExpression, TSCallSignatureDeclaration, TSClassImplements,
    TSConstructorType, TSEnumDeclaration, TSFunctionType, TSImportEqualsDeclaration,
    TSIndexSignatureName, TSInstantiationExpression, TSInterfaceBody, TSMethodSignature,
    TSMethodSignatureKind, TSNonNullExpression, TSPropertySignature, TSSatisfiesExpression,
    TSSignature, TSThisParameter, TSType, TSTypeAnnotation, TSTypeAssertion, TSTypeLiteral,
    TSTypeName, TSTypeParameter, TSTypeParameterDeclaration, TSTypeParameterInstantiation,
    TSTypePredicate, TSTypePredicateName, TSTypeQueryExprName, TSTypeReference, TemplateLiteral,
    VariableDeclaration, VariableDeclarationKind, VariableDeclarator, WhileStatement,
    WithStatement, YieldExpression,
};
use oxc_ast_visit::{Visit, walk};
use oxc_parser::{ParseOptions, Parser};
use oxc_span::{GetSpan, SourceType, Span};
use oxc_syntax::operator::BinaryOperator;
use oxc_syntax::scope::ScopeFlags;

use super::{PREFIX, SUFFIX};

/// An arena bigger than this after a program is dropped rather than kept for the next
/// one: a huge program should not pin its memory for the life of the process.
const KEPT_ARENA_BYTES: usize = 32 << 20;

/// Arenas kept for reuse (reset, not freed: allocation stays a pointer bump and the
/// pages stay mapped). Two threads strip at once at most.
static ARENAS: Mutex<Vec<Allocator>> = Mutex::new(Vec::new());
const KEPT_ARENAS: usize = 2;

/// Stack the parser and the walker may need per byte of a part, at worst: measured up
/// to 789 bytes (nested parentheses, release build), so twice that.
const STACK_PER_BYTE: usize = 1536;

/// Programs longer than this are cut into parts of about this size at statement
/// boundaries, parsed on two threads. Small parts keep the stack each needs small
/// (oxc recurses per nesting level) and the parse in cache.
const PART_BYTES: usize = 64 << 10;

/// A part longer than this (no statement boundary near where a cut was wanted) leaves
/// the program to the reference.
const MAX_PART_BYTES: usize = 4 * PART_BYTES;

/// Strips a program body, or `None` to leave it to the reference.
pub(super) fn strip_body(code: &str) -> Option<String> {
    if code.len() <= PART_BYTES {
        let stack = super::stack_for(code.len(), STACK_PER_BYTE);
        return stacker::maybe_grow(stack, stack, || strip_part(code, Start::Body))
            .map(|part| part.text);
    }
    let cuts = cut_points(code)?;
    strip_in_parts(code, &cuts)
}

/// Where to cut a long program: just after a `;` that ends a line, near each multiple
/// of the part size. Whether a cut really falls between two top-level statements is
/// checked after parsing. `None` when some part would be too long.
fn cut_points(code: &str) -> Option<Vec<usize>> {
    let candidates = statement_ends(code.as_bytes());
    let parts = code.len().div_ceil(PART_BYTES);
    let mut cuts = Vec::with_capacity(parts);
    let mut previous = 0;
    for index in 1..parts {
        let target = (index * code.len() / parts).max(previous + 1);
        let Some(&cut) = candidates.get(candidates.partition_point(|&at| at < target)) else {
            break;
        };
        if cut - previous > MAX_PART_BYTES {
            return None;
        }
        cuts.push(cut);
        previous = cut;
    }
    (code.len() - previous <= MAX_PART_BYTES).then_some(cuts)
}

/// Where top-level statements probably end: just after each `;` that ends a line outside
/// any bracket, string, comment, template or regular expression. A quick scan, not a
/// parse: a regular expression is told from a division by the token before it, which a
/// program can fool; a wrong candidate only fails its verification after parsing.
fn statement_ends(bytes: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut depth = 0usize;
    // The bracket depth at which each open template substitution (`${`) started.
    let mut substitutions: Vec<usize> = Vec::new();
    let mut regex_allowed = true;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match BYTE_CLASS[usize::from(byte)] {
            SPACE => at += 1,
            WORD => {
                let start = at;
                at += 1;
                while bytes.get(at).is_some_and(|&b| BYTE_CLASS[usize::from(b)] == WORD) {
                    at += 1;
                }
                // After these words an expression starts, so `/` begins a regex.
                regex_allowed = matches!(
                    &bytes[start..at],
                    b"return"
                        | b"typeof"
                        | b"case"
                        | b"do"
                        | b"else"
                        | b"in"
                        | b"of"
                        | b"new"
                        | b"delete"
                        | b"void"
                        | b"throw"
                        | b"instanceof"
                        | b"yield"
                        | b"await"
                );
            }
            OPERATOR => {
                regex_allowed = true;
                at += 1;
            }
            _ => match byte {
                b'/' if bytes.get(at + 1) == Some(&b'/') => {
                    at = find_from(bytes, at, |b| b == b'\n' || b == b'\r').unwrap_or(bytes.len());
                }
                b'/' if bytes.get(at + 1) == Some(&b'*') => {
                    at = bytes[at + 2..]
                        .windows(2)
                        .position(|pair| pair == b"*/")
                        .map_or(bytes.len(), |end| at + 2 + end + 2);
                }
                b'/' if regex_allowed => {
                    at = skip_regex(bytes, at);
                    regex_allowed = false;
                }
                b'/' => {
                    regex_allowed = true;
                    at += 1;
                }
                b'\'' | b'"' => {
                    at = skip_quoted(bytes, at, byte);
                    regex_allowed = false;
                }
                b'`' => {
                    at = skip_template(bytes, at + 1, depth, &mut substitutions, &mut depth);
                    regex_allowed = false;
                }
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    regex_allowed = true;
                    at += 1;
                }
                b')' | b']' => {
                    depth = depth.saturating_sub(1);
                    regex_allowed = false;
                    at += 1;
                }
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if substitutions.last() == Some(&depth) {
                        substitutions.pop();
                        at = skip_template(bytes, at + 1, depth, &mut substitutions, &mut depth);
                        regex_allowed = false;
                    } else {
                        regex_allowed = true;
                        at += 1;
                    }
                }
                // `;`
                _ => {
                    if depth == 0 && matches!(bytes.get(at + 1), Some(b'\n' | b'\r')) {
                        ends.push(at + 1);
                    }
                    regex_allowed = true;
                    at += 1;
                }
            },
        }
    }
    ends
}

const SPACE: u8 = 0;
const WORD: u8 = 1;
const OPERATOR: u8 = 2;
const SPECIAL: u8 = 3;

/// What each byte is to `statement_ends`: most bytes need no more than this.
static BYTE_CLASS: [u8; 256] = {
    let mut class = [OPERATOR; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        class[byte] = match b {
            b' ' | b'\t' | b'\n' | b'\r' => SPACE,
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'$' | 0x80.. => WORD,
            b'/' | b'\'' | b'"' | b'`' | b'(' | b'[' | b'{' | b')' | b']' | b'}' | b';' => SPECIAL,
            _ => OPERATOR,
        };
        byte += 1;
    }
    class
};

fn find_from(bytes: &[u8], from: usize, stop: impl Fn(u8) -> bool) -> Option<usize> {
    bytes.get(from..)?.iter().position(|&b| stop(b)).map(|offset| from + offset)
}

/// Past a quoted string starting at `at` (or to the end of its line, where an
/// unterminated one ends).
fn skip_quoted(bytes: &[u8], at: usize, quote: u8) -> usize {
    let mut index = at + 1;
    while let Some(&byte) = bytes.get(index) {
        match byte {
            b'\\' => index += 2,
            b'\n' | b'\r' => return index,
            _ if byte == quote => return index + 1,
            _ => index += 1,
        }
    }
    bytes.len()
}

/// Past a regular expression starting at `at` (a `/` inside `[...]` does not end it).
fn skip_regex(bytes: &[u8], at: usize) -> usize {
    let mut index = at + 1;
    let mut in_class = false;
    while let Some(&byte) = bytes.get(index) {
        match byte {
            b'\\' => index += 2,
            b'\n' | b'\r' => return index,
            b'[' => {
                in_class = true;
                index += 1;
            }
            b']' => {
                in_class = false;
                index += 1;
            }
            b'/' if !in_class => return index + 1,
            _ => index += 1,
        }
    }
    bytes.len()
}

/// Past the text of a template from `at` (just after its opening backtick or a `}`
/// closing a substitution) to its closing backtick, or into a substitution (`${`),
/// whose bracket depth is pushed so its closing `}` resumes the template.
fn skip_template(
    bytes: &[u8],
    at: usize,
    outer_depth: usize,
    substitutions: &mut Vec<usize>,
    depth: &mut usize,
) -> usize {
    let mut index = at;
    while let Some(&byte) = bytes.get(index) {
        match byte {
            b'\\' => index += 2,
            b'`' => return index + 1,
            b'$' if bytes.get(index + 1) == Some(&b'{') => {
                substitutions.push(outer_depth);
                *depth = outer_depth + 1;
                return index + 2;
            }
            _ => index += 1,
        }
    }
    bytes.len()
}

/// Strips the parts of `code` between `cuts` on two threads. `None` when a cut turns out
/// not to be between two top-level statements (or a part is outside the subset).
///
/// Why the parts give exactly the whole's answer: each part but the last must parse,
/// inside the same wrapper, into statements the last of which ends with the `;` just
/// before the cut, and after which the last kept statement ends with `;`. So no token,
/// bracket or statement crosses the cut (an unterminated one fails that part's parse,
/// and the wrapper's closing brace fails a cut inside a block); the only continuation
/// of a statement past its `;` is `else`, which fails the next part. Each later part
/// starts at a statement start (where `/` is a regex, as at the start of a program),
/// after a kept statement ending with `;` (erased ones between do not count), which is
/// the state its eraser starts from. Directives would make later parts strict in the
/// whole but not alone; any directive makes the fast path give up, and the check below
/// says so again.
fn strip_in_parts(code: &str, cuts: &[usize]) -> Option<String> {
    let mut bounds = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&code.len())) {
        bounds.push(code.get(start..cut)?);
        start = cut;
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let longest = bounds.iter().map(|part| part.len()).max().unwrap_or(0);
    let stack = super::stack_for(longest, STACK_PER_BYTE);
    // Each thread takes the next part until none is left (or one failed).
    let work = || {
        stacker::maybe_grow(stack, stack, || {
            let mut done = Vec::new();
            while !failed.load(Ordering::Relaxed) {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(part) = bounds.get(index) else {
                    break;
                };
                let start = if index == 0 { Start::Body } else { Start::AfterStatement };
                let stripped = strip_part(part, start);
                if stripped.is_none() {
                    failed.store(true, Ordering::Relaxed);
                }
                done.push((index, stripped));
            }
            done
        })
    };
    let mut done = std::thread::scope(|scope| {
        let helper = std::thread::Builder::new().name("dsh-strip".into()).spawn_scoped(scope, work);
        let mut done = work();
        match helper.map(|handle| handle.join()) {
            Ok(Ok(theirs)) => done.extend(theirs),
            // Without a second thread this one took every part; a panic there fails all.
            Err(_) => {}
            Ok(Err(_)) => failed.store(true, Ordering::Relaxed),
        }
        done
    });
    if failed.load(Ordering::Relaxed) || done.len() != bounds.len() {
        return None;
    }
    done.sort_unstable_by_key(|(index, _)| *index);
    let mut text = String::with_capacity(code.len());
    let last = bounds.len() - 1;
    for (index, part) in done {
        let part = part?;
        let part_end = u32::try_from(PREFIX.len() + bounds[index].len()).ok()?;
        // A part but the last ends with a statement ending right at the cut, after
        // which the next statement's erasure sees a kept statement ending with `;`:
        // the state the next part started from.
        let end = part.list_end;
        if part.had_directives
            || (index < last
                && (end.last_statement_end != Some(part_end)
                    || end.previous_ends_with_semicolon != Some(true)
                    || !bounds[index].ends_with(';')))
        {
            return None;
        }
        text.push_str(&part.text);
    }
    Some(text)
}

/// Where a part of a program starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Start {
    /// At the start of the body: a directive prologue may begin here.
    Body,
    /// Right after a kept top-level statement that ends with `;`.
    AfterStatement,
}

/// A stripped part of a program.
struct Part {
    text: String,
    had_directives: bool,
    /// How the program's statement list ended (offsets in the wrapped text).
    list_end: ListEnd,
}

fn strip_part(code: &str, start: Start) -> Option<Part> {
    let wrapped = super::wrap(code);
    let mut arena = ARENAS.lock().unwrap_or_else(PoisonError::into_inner).pop().unwrap_or_default();
    let part = strip_wrapped(&arena, &wrapped, start);
    let used = arena.used_bytes();
    arena.reset();
    // A reset keeps only the newest chunk: when the program needed more, the next one
    // of its size would allocate (and fault in) fresh chunks again. One chunk that
    // fits it avoids that.
    let fitting = used + used / 4;
    if arena.capacity() < used && fitting <= KEPT_ARENA_BYTES {
        arena = Allocator::with_capacity(fitting);
    }
    if arena.capacity() <= KEPT_ARENA_BYTES {
        let mut kept = ARENAS.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() < KEPT_ARENAS {
            kept.push(arena);
        }
    }
    part
}

fn strip_wrapped(arena: &Allocator, wrapped: &str, start: Start) -> Option<Part> {
    // Annex B's HTML-like comments (`<!--`, `-->` at a line start): the reference's spans
    // around them differ from oxc's. Rare in programs, so not modelled.
    if wrapped.contains("<!--") || wrapped.contains("-->") {
        return None;
    }
    // Offsets are u32 in oxc; the reference takes over beyond that.
    if u32::try_from(wrapped.len()).is_err() {
        return None;
    }
    let options = ParseOptions { enable_ident_hashes: false, ..ParseOptions::default() };
    let parsed = Parser::new(arena, wrapped, SourceType::ts().with_script(true))
        .with_options(options)
        .parse();
    if parsed.panicked || !parsed.diagnostics.is_empty() {
        return None;
    }
    let body = wrapper_body(&parsed.program)?;
    let mut eraser = Eraser::new(wrapped);
    eraser.continuation = start == Start::AfterStatement;
    eraser.visit_program(&parsed.program);
    if eraser.gave_up {
        return None;
    }
    let text =
        render(wrapped, PREFIX.len()..wrapped.len() - SUFFIX.len(), eraser.blanks, eraser.puts)?;
    Some(Part {
        text,
        had_directives: !body.directives.is_empty(),
        list_end: eraser.program_list_end,
    })
}

/// The wrapper function's body: the program's own statements.
fn wrapper_body<'p, 'a>(program: &'p Program<'a>) -> Option<&'p FunctionBody<'a>> {
    match program.body.as_slice() {
        [Statement::FunctionDeclaration(function)] if program.directives.is_empty() => {
            function.body.as_deref()
        }
        _ => None,
    }
}

/// Walks a parsed program and plans its edits; `gave_up` ends the walk (the reference
/// strips the program instead).
struct Eraser<'s> {
    source: &'s str,
    /// Ranges to blank (byte offsets, end exclusive), in any order.
    blanks: Vec<(u32, u32)>,
    /// Characters to replace with an ASCII character, by byte offset.
    puts: Vec<(u32, u8)>,
    gave_up: bool,
    /// Set by a function body for the statement list it is about to visit: that list
    /// starts a directive prologue. (A body with directives is given up on, so the list
    /// always starts right at the prologue's start.)
    prologue: bool,
    /// The text is the second half of a program cut after a kept statement ending with
    /// `;`: the wrapper body's first statement does not start a prologue and follows
    /// that statement.
    continuation: bool,
    /// Set until the program's own statement list is reached.
    before_program_list: bool,
    /// How the program's own statement list ended.
    program_list_end: ListEnd,
    class: ClassContext,
    jumps: Jumps,
    /// Above zero while walking erased code for its checks only.
    checking: u32,
    /// Above zero inside parameter lists (`await`/`yield` there are refused).
    parameters: u32,
    /// Above zero inside class static blocks (`await` there is refused).
    static_blocks: u32,
    /// Above zero inside the middle of a conditional (`a ? here : b`).
    consequents: u32,
    /// Classes around the walk: their code is strict (octal escapes are refused).
    classes: u32,
    /// Every enclosing label, across functions, fields and static blocks (a duplicate
    /// of any is left to the reference).
    all_labels: Vec<Span>,

    /// Where the type predicates that are return types start (the only place the
    /// reference takes `x is T`).
    return_predicates: Vec<u32>,
}

/// What the next token after a position is.
struct Next {
    at: u32,
    byte: u8,
    after_line_break: bool,
}

impl<'s> Eraser<'s> {
    fn new(source: &'s str) -> Self {
        Self {
            source,
            blanks: Vec::new(),
            puts: Vec::new(),
            gave_up: false,
            prologue: false,
            continuation: false,
            before_program_list: true,
            program_list_end: ListEnd::default(),
            class: ClassContext::default(),
            jumps: Jumps::default(),
            checking: 0,
            parameters: 0,
            static_blocks: 0,
            consequents: 0,
            classes: 0,
            all_labels: Vec::new(),

            return_predicates: Vec::new(),
        }
    }

    fn give_up(&mut self) {
        self.gave_up = true;
    }

    fn blank(&mut self, start: u32, end: u32) {
        if start < end && self.checking == 0 {
            self.blanks.push((start, end));
        }
    }

    fn blank_span(&mut self, span: Span) {
        self.blank(span.start, span.end);
    }

    fn put(&mut self, at: u32, byte: u8) {
        if self.checking == 0 {
            self.puts.push((at, byte));
        }
    }

    /// Walks code that is erased anyway (a type, an interface, a `declare` statement)
    /// only to apply the checks: oxc accepts some types and signatures the reference
    /// refuses, and an erased refusal must not become an answer.
    fn check(&mut self, walk: impl FnOnce(&mut Self)) {
        self.checking += 1;
        walk(self);
        self.checking -= 1;
    }

    fn bytes(&self) -> &'s [u8] {
        self.source.as_bytes()
    }

    /// Whether the code in `span` ends with a `;` token. A span ends at the end of its
    /// last token, and no other token ends with that character.
    fn ends_with_semicolon(&self, span: Span) -> bool {
        span.end > span.start && self.bytes().get(span.end as usize - 1) == Some(&b';')
    }

    fn has_line_terminator(&self, start: u32, end: u32) -> bool {
        self.source
            .get(start as usize..end as usize)
            .is_none_or(|text| text.contains(['\n', '\r', '\u{2028}', '\u{2029}']))
    }

    /// The first token at or after `at`, skipping whitespace and comments. `None` (after
    /// giving up) where the scan meets something it does not model: Annex B's HTML-like
    /// comments, or unusual whitespace.
    fn next_token(&mut self, mut at: u32) -> Option<Next> {
        let bytes = self.bytes();
        let mut after_line_break = false;
        loop {
            let Some(&byte) = bytes.get(at as usize) else {
                self.give_up();
                return None;
            };
            match byte {
                b' ' | b'\t' | 0x0b | 0x0c => at += 1,
                b'\n' | b'\r' => {
                    after_line_break = true;
                    at += 1;
                }
                b'/' if bytes.get(at as usize + 1) == Some(&b'/') => {
                    let rest = &self.source[at as usize..];
                    let end = rest.find(['\n', '\r', '\u{2028}', '\u{2029}']).unwrap_or(rest.len());
                    at += u32::try_from(end).ok()?;
                }
                b'/' if bytes.get(at as usize + 1) == Some(&b'*') => {
                    let rest = &self.source[at as usize + 2..];
                    let Some(end) = rest.find("*/") else {
                        self.give_up();
                        return None;
                    };
                    if rest[..end].contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
                        after_line_break = true;
                    }
                    at += u32::try_from(end + 4).ok()?;
                }
                b'<' if bytes[at as usize..].starts_with(b"<!--") => {
                    self.give_up();
                    return None;
                }
                b'-' if bytes[at as usize..].starts_with(b"-->") => {
                    self.give_up();
                    return None;
                }
                0x80.. => {
                    let character = self.source[at as usize..].chars().next()?;
                    match character {
                        '\u{2028}' | '\u{2029}' => after_line_break = true,
                        '\u{a0}' | '\u{feff}' => {}
                        _ => {
                            // A non-ASCII token (an identifier) or rare whitespace.
                            self.give_up();
                            return None;
                        }
                    }
                    at += u32::try_from(character.len_utf8()).ok()?;
                }
                _ => return Some(Next { at, byte, after_line_break }),
            }
        }
    }

    /// The position of `byte` as the next token after `at`, or give up.
    fn expect_punctuator(&mut self, at: u32, byte: u8) -> Option<u32> {
        let next = self.next_token(at)?;
        if next.byte == byte {
            return Some(next.at);
        }
        self.give_up();
        None
    }

    /// The end of a class member's key: after the `]` of a computed key.
    fn key_end(&mut self, key: &PropertyKey<'_>, computed: bool) -> Option<u32> {
        let end = key.span().end;
        if computed { self.expect_punctuator(end, b']').map(|at| at + 1) } else { Some(end) }
    }

    /// Statements of a list: erased declarations, and `;` where erasing one after a
    /// statement that does not end with `;` (or at the start of a directive prologue)
    /// could join it to its neighbours.
    fn statement_list(&mut self, statements: &[Statement<'_>]) {
        let prologue = std::mem::take(&mut self.prologue);
        let mut first_after_prologue = prologue;
        let mut previous_ends_with_semicolon = None;
        // The first list with a prologue is the wrapper's body: the program's own list.
        let program_list = prologue && std::mem::take(&mut self.before_program_list);
        if program_list && self.continuation {
            first_after_prologue = false;
            previous_ends_with_semicolon = Some(true);
        }
        for statement in statements {
            if self.gave_up {
                return;
            }
            match erased_statement(statement) {
                Erase::GiveUp => self.give_up(),
                Erase::Whole => {
                    let span = statement.span();
                    self.blank_span(span);
                    if first_after_prologue || previous_ends_with_semicolon == Some(false) {
                        self.put(span.start, b';');
                    }
                    self.check(|eraser| walk::walk_statement(eraser, statement));
                }
                Erase::Keep => {
                    self.visit_statement(statement);
                    previous_ends_with_semicolon = Some(self.ends_with_semicolon(statement.span()));
                }
            }
            first_after_prologue = false;
        }
        if program_list {
            self.program_list_end = ListEnd {
                last_statement_end: statements.last().map(|statement| statement.span().end),
                previous_ends_with_semicolon,
            };
        }
    }

    /// The modifier words (and `*`) between a class member's start and its key, or
    /// `None` (after giving up) on anything else there, or a line break (where the
    /// reference and oxc disagree on which word is the key).
    fn member_modifiers(&mut self, start: u32, key_start: u32) -> Option<Vec<(&'s str, u32)>> {
        let mut words = Vec::new();
        let mut at = start;
        loop {
            let next = self.next_token(at)?;
            if next.at >= key_start {
                if next.after_line_break {
                    self.give_up();
                    return None;
                }
                return Some(words);
            }
            if next.after_line_break && !words.is_empty() {
                self.give_up();
                return None;
            }
            let end = if next.byte == b'*' {
                next.at as usize + 1
            } else if next.byte.is_ascii_alphabetic() {
                self.bytes()[next.at as usize..]
                    .iter()
                    .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$'))
                    .map_or(self.source.len(), |length| next.at as usize + length)
            } else {
                self.give_up();
                return None;
            };
            words.push((&self.source[next.at as usize..end], next.at));
            at = u32::try_from(end).ok()?;
        }
    }

    /// Checks a member's modifier words against what oxc recorded and against the
    /// combinations the reference accepts, blanks the TypeScript-only ones (for a kept
    /// member), and returns where the first blanked one starts. Gives up on any word
    /// oxc did not record (it drops some it rejects silently), on an order other than
    /// the canonical one, and on combinations the reference refuses.
    fn class_modifiers(&mut self, member: &Member, blank: bool) -> Option<u32> {
        let key_start = self.key_start(member.key_span.start, member.computed);
        let words = self.member_modifiers(member.span.start, key_start)?;
        let expected: [(&str, bool, u8); 11] = [
            (
                member.accessibility.map_or("", accessibility_word),
                member.accessibility.is_some(),
                0,
            ),
            ("declare", member.declare, 1),
            ("abstract", member.is_abstract, 1),
            ("static", member.is_static, 2),
            ("override", member.is_override, 3),
            ("readonly", member.readonly, 4),
            ("async", member.is_async, 5),
            ("*", member.generator, 6),
            ("get", member.getter, 7),
            ("set", member.setter, 7),
            ("", false, 0),
        ];
        let mut rank = 0;
        let mut seen = 0;
        let mut first = None;
        for (word, at) in &words {
            let Some((_, _, word_rank)) =
                expected.iter().find(|(name, wanted, _)| *wanted && name == word)
            else {
                self.give_up();
                return None;
            };
            if *word_rank < rank {
                self.give_up();
                return None;
            }
            rank = *word_rank;
            seen += 1;
            if blank
                && matches!(*word, "public" | "private" | "protected" | "override" | "readonly")
            {
                self.blank(*at, *at + u32::try_from(word.len()).ok()?);
                first.get_or_insert(*at);
            }
        }
        if seen != expected.iter().filter(|(_, wanted, _)| *wanted).count() {
            self.give_up();
            return None;
        }
        first
    }

    /// Rules the reference enforces while parsing a member and oxc leaves to later
    /// checks: give up on any of them.
    fn member_is_refused(&self, member: &Member) -> bool {
        let context = self.class;
        (member.is_abstract && (!context.is_abstract || member.is_static || member.private))
            || (member.is_override && !context.extends)
            || (member.declare && (member.is_static || member.is_override || member.private))
            || (member.private && member.accessibility.is_some())
            || member.accessibility == Some(TSAccessibility::Private) && member.is_abstract
            || member.key_is_modifier_word
            || (member.declare && member.is_abstract)
            || member.key_is_constructor_string
    }

    fn class_members(&mut self, body: &ClassBody<'_>) {
        let mut previous_ends_with_semicolon: Option<bool> = None;
        let mut constructors = 0;
        // Stray `;` between members are members of their own in the reference's AST
        // (and end with `;`); oxc drops them, so the gaps are read here.
        let mut gap_start = body.span.start + 1;
        for element in &body.body {
            if self.gave_up {
                return;
            }
            let span = element.span();
            match self.gap_has_semicolon(gap_start, span.start) {
                Some(true) => previous_ends_with_semicolon = Some(true),
                Some(false) => {}
                None => return,
            }
            gap_start = span.end;
            let needs_semicolon = previous_ends_with_semicolon == Some(false);
            let kept = match element {
                ClassElement::StaticBlock(block) => {
                    let saved = self.jumps.enter_function();
                    self.static_blocks += 1;
                    self.statement_list(&block.body);
                    self.static_blocks -= 1;
                    self.jumps = saved;
                    true
                }
                ClassElement::TSIndexSignature(signature) => {
                    if signature.r#static || signature.readonly {
                        self.give_up();
                    }
                    self.erase_member(signature.span, needs_semicolon);
                    self.check(|eraser| eraser.visit_ts_index_signature(signature));
                    self.field_is_terminated(signature.span);
                    false
                }
                ClassElement::PropertyDefinition(property) => {
                    let kept = self.property(property, needs_semicolon);
                    self.field_is_terminated(property.span);
                    kept
                }
                ClassElement::MethodDefinition(method) => {
                    if method.kind == MethodDefinitionKind::Constructor
                        && method.value.body.is_some()
                    {
                        constructors += 1;
                    }
                    self.method(method, needs_semicolon)
                }
                ClassElement::AccessorProperty(_) => {
                    self.give_up();
                    false
                }
            };
            if kept {
                previous_ends_with_semicolon = Some(self.ends_with_semicolon(span));
            }
        }
        if constructors > 1 {
            self.give_up();
        }
        if !self.gave_up && self.gap_has_semicolon(gap_start, body.span.end - 1).is_none() {
            self.give_up();
        }
    }

    /// A field (or index signature) not ending with `;` must be followed by `;`, `}` or
    /// a line break: the reference refuses `[k: string]: any private p = 1`.
    fn field_is_terminated(&mut self, span: Span) {
        if self.gave_up || self.ends_with_semicolon(span) {
            return;
        }
        let Some(next) = self.next_token(span.end) else {
            return;
        };
        if !(next.after_line_break || matches!(next.byte, b';' | b'}')) {
            self.give_up();
        }
    }

    /// Whether the gap between two members holds a `;`; `None` (after giving up) if it
    /// holds anything but `;`, whitespace and comments.
    fn gap_has_semicolon(&mut self, mut at: u32, end: u32) -> Option<bool> {
        let mut found = false;
        while at < end {
            let next = self.next_token(at)?;
            if next.at >= end {
                break;
            }
            if next.byte != b';' {
                self.give_up();
                return None;
            }
            found = true;
            at = next.at + 1;
        }
        Some(found)
    }

    fn erase_member(&mut self, span: Span, needs_semicolon: bool) {
        self.blank_span(span);
        if needs_semicolon {
            self.put(span.start, b';');
        }
    }

    /// `;` before a member whose first token was an erased modifier, when the member
    /// could otherwise continue the previous one (`x = 1 \n public [k]() {}`).
    fn separate_hazard(&mut self, span: Span, first_modifier: Option<u32>, hazardous: bool) {
        if hazardous && first_modifier == Some(span.start) {
            self.put(span.start, b';');
        }
    }

    /// A class field; whether it stays.
    fn property(&mut self, property: &PropertyDefinition<'_>, needs_semicolon: bool) -> bool {
        if !property.decorators.is_empty() || (property.definite && property.value.is_some()) {
            self.give_up();
            return false;
        }
        let member = Member {
            span: property.span,
            key_span: property.key.span(),
            computed: property.computed,
            private: matches!(property.key, PropertyKey::PrivateIdentifier(_)),
            key_is_modifier_word: is_modifier_word(&property.key, property.computed),
            key_is_constructor_string: is_constructor_string(&property.key),
            accessibility: property.accessibility,
            declare: property.declare,
            is_abstract: property.r#type == PropertyDefinitionType::TSAbstractPropertyDefinition,
            is_static: property.r#static,
            is_override: property.r#override,
            readonly: property.readonly,
            is_async: false,
            generator: false,
            getter: false,
            setter: false,
        };
        if self.member_is_refused(&member)
            || ((member.is_abstract || member.declare)
                && (property.value.is_some() || property.definite || property.optional))
        {
            self.give_up();
            return false;
        }
        if member.declare || member.is_abstract {
            self.class_modifiers(&member, false);
            self.erase_member(property.span, needs_semicolon);
            self.check(|eraser| walk::walk_property_definition(eraser, property));
            return false;
        }
        let first = self.class_modifiers(&member, true);
        if self.gave_up {
            return false;
        }
        if !member.private && !member.is_static {
            let hazardous = property.computed || is_in_or_instanceof(&property.key);
            self.separate_hazard(property.span, first, hazardous && needs_semicolon);
        }
        let Some(key_end) = self.key_end(&property.key, property.computed) else {
            return false;
        };
        let annotation = property.type_annotation.as_deref();
        let mut separator = annotation.map(|a| a.span.start);
        if property.optional || property.definite {
            let marker = if property.optional { b'?' } else { b'!' };
            let Some(at) = self.expect_punctuator(key_end, marker) else {
                return false;
            };
            self.blank(at, at + 1);
            separator = separator.or(Some(at));
        }
        if let Some(annotation) = annotation {
            self.visit_ts_type_annotation(annotation);
        }
        if property.value.is_none()
            && let Some(separator) = separator
            && !property.computed
            && let PropertyKey::StaticIdentifier(_) = &property.key
        {
            // `get: T` without a value would read as an accessor once blanked.
            let key = member.key_span;
            let text = &self.source[key.start as usize..key.end as usize];
            if matches!(text, "get" | "set" | "static") {
                self.put(separator, b';');
            }
        }
        // A literal key is checked too (`"\033"` and `010` are refused in a class).
        self.visit_property_key(&property.key);
        if let Some(value) = &property.value {
            let saved = self.jumps.enter_function();
            self.visit_expression(value);
            self.jumps = saved;
        }
        true
    }

    /// A class method or constructor; whether it stays.
    fn method(&mut self, method: &MethodDefinition<'_>, needs_semicolon: bool) -> bool {
        if !method.decorators.is_empty() {
            self.give_up();
            return false;
        }
        let constructor = method.kind == MethodDefinitionKind::Constructor;
        let named_constructor = !method.computed
            && matches!(&method.key, PropertyKey::StaticIdentifier(name) if name.name == "constructor");
        let function = &method.value;
        let member = Member {
            span: method.span,
            key_span: method.key.span(),
            computed: method.computed,
            private: matches!(method.key, PropertyKey::PrivateIdentifier(_)),
            key_is_modifier_word: is_modifier_word(&method.key, method.computed),
            key_is_constructor_string: is_constructor_string(&method.key),
            accessibility: method.accessibility,
            declare: false,
            is_abstract: method.r#type == MethodDefinitionType::TSAbstractMethodDefinition,
            is_static: method.r#static,
            is_override: method.r#override,
            readonly: false,
            is_async: function.r#async,
            generator: function.generator,
            getter: method.kind == MethodDefinitionKind::Get,
            setter: method.kind == MethodDefinitionKind::Set,
        };
        let erased = member.is_abstract || function.body.is_none();
        if has_wrong_accessor_arity(function, member.getter, member.setter) {
            self.give_up();
            return false;
        }
        if self.member_is_refused(&member)
            || (named_constructor && !constructor)
            || (constructor
                && (member.is_override
                    || member.is_async
                    || member.generator
                    || method.optional
                    || function.return_type.is_some()
                    || function.type_parameters.is_some()))
            || (member.is_abstract && function.body.is_some())
            || (erased && (member.getter || member.setter || has_initializer(function)))
        {
            self.give_up();
            return false;
        }
        if erased {
            self.class_modifiers(&member, false);
            self.erase_member(method.span, needs_semicolon);
            self.check(|eraser| {
                eraser.visit_property_key(&method.key);
                eraser.visit_function(function, ScopeFlags::Function);
            });
            return false;
        }
        let first = self.class_modifiers(&member, true);
        if self.gave_up {
            return false;
        }
        if !constructor && !member.private && !member.is_static {
            let hazardous =
                method.computed || is_in_or_instanceof(&method.key) || function.generator;
            self.separate_hazard(method.span, first, hazardous && needs_semicolon);
        }
        if method.optional {
            let Some(key_end) = self.key_end(&method.key, method.computed) else {
                return false;
            };
            let Some(at) = self.expect_punctuator(key_end, b'?') else {
                return false;
            };
            self.blank(at, at + 1);
        }
        self.visit_property_key(&method.key);
        self.visit_function(function, ScopeFlags::Function);
        true
    }

    /// The next token after a function type's parameters must be `=>` (oxc also takes
    /// `() = x` and others, and the reference does not).
    fn expect_arrow(&mut self, parameters_end: u32) {
        if let Some(next) = self.next_token(parameters_end)
            && !self.bytes()[next.at as usize..].starts_with(b"=>")
        {
            self.give_up();
        }
    }

    /// Marks the type predicate of a return type (if it is one) as allowed.
    fn allow_return_predicate(&mut self, return_type: Option<&TSTypeAnnotation<'_>>) {
        if let Some(annotation) = return_type
            && let TSType::TSTypePredicate(predicate) = &annotation.type_annotation
        {
            self.return_predicates.push(predicate.span.start);
        }
    }

    /// Members of a type literal or interface must be separated by `;`, `,` or a line
    /// break: oxc also takes `{ a: number b: string }`.
    fn expect_member_separators(&mut self, members: &[TSSignature<'_>]) {
        for member in members.iter().take(members.len().saturating_sub(1)) {
            let end = member.span().end;
            if matches!(self.bytes().get(end as usize - 1), Some(b';' | b',')) {
                continue;
            }
            let Some(next) = self.next_token(end) else {
                return;
            };
            // A line break does not separate a member from a following `[`, `(` or `<`
            // in the reference (it may continue the member).
            let continues = matches!(next.byte, b'[' | b'(' | b'<');
            if !(next.after_line_break && !continues || matches!(next.byte, b';' | b',')) {
                self.give_up();
                return;
            }
        }
    }

    /// Blanked, a type parameter list or return type that spans lines would leave a line
    /// break where an arrow cannot have one (before `=>`, or after `return`/`async`); the
    /// reference moves a parenthesis into the blanked type to keep the line break inside
    /// the parameter list, and so does this.
    fn move_arrow_parentheses(&mut self, arrow: &ArrowFunctionExpression<'_>) {
        let parameters = arrow.params.span;
        if let Some(type_parameters) = &arrow.type_parameters
            && self.has_line_terminator(type_parameters.span.start, parameters.start)
            && (arrow.r#async || self.after_restricted_word(type_parameters.span.start))
        {
            if self.bytes().get(parameters.start as usize) != Some(&b'(') {
                self.give_up();
                return;
            }
            self.put(type_parameters.span.start, b'(');
            self.blank(parameters.start, parameters.start + 1);
        }
        let Some(return_type) = &arrow.return_type else {
            return;
        };
        let Some(next) = self.next_token(return_type.span.end) else {
            return;
        };
        let closing = parameters.end.saturating_sub(1);
        if !self.bytes()[next.at as usize..].starts_with(b"=>")
            || self.bytes().get(closing as usize) != Some(&b')')
        {
            self.give_up();
            return;
        }
        if !self.has_line_terminator(parameters.end, next.at) {
            return;
        }
        let Some(last) = self.source[..return_type.span.end as usize].chars().next_back() else {
            return;
        };
        self.blank(closing, return_type.span.end);
        self.put(return_type.span.end - last.len_utf8() as u32, b')');
    }

    /// Whether `return`, `throw` or `yield` is the token just before `at` on the same
    /// line (after them a line break ends the statement). Gives up where a comment is
    /// in the way.
    fn after_restricted_word(&mut self, at: u32) -> bool {
        let before = &self.source[..at as usize];
        // Skip whitespace back to the previous token (any JavaScript whitespace, not
        // only spaces: `return\u{a0}<T,\n>(x) => x` counts too).
        let end = before
            .char_indices()
            .rev()
            .find(|(_, c)| !is_whitespace_but_not_line_break(*c))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let before = &before[..end];
        if before.ends_with("*/") {
            self.give_up();
            return false;
        }
        let word_start = before
            .bytes()
            .rposition(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'$'))
            .map_or(0, |i| i + 1);
        matches!(&before[word_start..], "return" | "throw" | "yield")
    }

    /// Where an enclosing label with the name at `name` is, innermost first.
    fn label_index(&self, name: Span) -> Option<usize> {
        let text = |span: Span| self.source.get(span.start as usize..span.end as usize);
        let wanted = text(name)?;
        self.jumps.labels.iter().rposition(|(label, _)| text(*label) == Some(wanted))
    }

    /// Enters a loop body, or gives up (and returns false) when the body is a
    /// declaration.
    fn enter_loop(&mut self, body: &Statement<'_>) -> bool {
        if is_declaration(body) {
            self.give_up();
            return false;
        }
        self.jumps.loops += 1;
        true
    }

    /// Where a key's tokens start: the `[` of a computed key is before its expression.
    /// Found by a backward byte search, which a `[` in a comment inside the brackets
    /// fools; `member_modifiers` then meets the real `[` before this position and gives
    /// up, so that costs the fast path, never a wrong answer.
    fn key_start(&self, expression_start: u32, computed: bool) -> u32 {
        if !computed {
            return expression_start;
        }
        let before = &self.bytes()[..expression_start as usize];
        before.iter().rposition(|b| *b == b'[').map_or(0, |at| at as u32)
    }

    /// Blanks what follows an expression inside its wrapper (`x as T`, `x!`, `f<T>`).
    fn erase_suffix(&mut self, expression: &Expression<'_>, wrapper: Span) {
        self.visit_expression(expression);
        self.blank(expression.span().end, wrapper.end);
    }

    /// `x as T` / `x satisfies T`, and a `;` when a line starting with `(`, `[` or a
    /// template follows: blanked, `x\n(y)` would become a call.
    fn erase_postfix_assertion(&mut self, expression: &Expression<'_>, wrapper: Span) {
        self.erase_suffix(expression, wrapper);
        if self.gave_up {
            return;
        }
        let Some(next) = self.next_token(wrapper.end) else {
            return;
        };
        if next.after_line_break && matches!(next.byte, b'(' | b'[' | b'`') {
            self.put(expression.span().end, b';');
        }
    }
}

/// What the class-member rules need to know of a member.
struct Member {
    span: Span,
    key_span: Span,
    computed: bool,
    private: bool,
    key_is_modifier_word: bool,
    /// `"constructor"` as a string key: the reference treats it as the constructor.
    key_is_constructor_string: bool,
    accessibility: Option<TSAccessibility>,
    declare: bool,
    is_abstract: bool,
    is_static: bool,
    is_override: bool,
    readonly: bool,
    is_async: bool,
    generator: bool,
    getter: bool,
    setter: bool,
}

/// The class whose members are being walked.
#[derive(Clone, Copy, Default)]
struct ClassContext {
    is_abstract: bool,
    extends: bool,
}

/// Where `break` and `continue` may go: oxc leaves misplaced ones to a later pass, the
/// reference refuses them while parsing.
#[derive(Default)]
struct Jumps {
    loops: u32,
    switches: u32,
    /// The enclosing labels (their names' spans) and whether each labels a loop.
    labels: Vec<(Span, bool)>,
}

impl Jumps {
    /// A function (or class field, or static block) starts with nowhere to jump to.
    /// Returns what to restore afterwards.
    fn enter_function(&mut self) -> Jumps {
        std::mem::take(self)
    }
}

/// Whether a non-computed key is a word that is a modifier before a line break: the
/// reference and oxc split `public\n x = 1` into members differently.
fn is_modifier_word(key: &PropertyKey<'_>, computed: bool) -> bool {
    !computed
        && matches!(key, PropertyKey::StaticIdentifier(name) if matches!(name.name.as_str(),
            "public" | "private" | "protected" | "readonly" | "abstract" | "declare"
            | "override" | "in" | "out" | "accessor" | "static" | "async" | "const"))
}

/// `for (const x: T of …)` and `for (const x = 1 of …)`: refused by the reference.
fn annotated_or_initialized(left: &ForStatementLeft<'_>) -> bool {
    match left {
        ForStatementLeft::VariableDeclaration(declaration) => {
            declaration.declarations.iter().any(|d| d.type_annotation.is_some() || d.init.is_some())
        }
        // `for ({} in o)`: a destructuring target there is refused by the reference.
        ForStatementLeft::ArrayAssignmentTarget(_)
        | ForStatementLeft::ObjectAssignmentTarget(_) => true,
        _ => false,
    }
}

/// JavaScript whitespace other than line terminators.
fn is_whitespace_but_not_line_break(character: char) -> bool {
    matches!(
        character,
        '\t' | '\u{b}' | '\u{c}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// Whether a type name is (or starts with) a reserved word: `if`, `new.target`.
fn type_name_is_reserved(name: &TSTypeName<'_>) -> bool {
    match name {
        TSTypeName::IdentifierReference(identifier) => is_reserved_word(&identifier.name),
        TSTypeName::QualifiedName(qualified) => type_name_is_reserved(&qualified.left),
        TSTypeName::ThisExpression(_) => false,
    }
}

/// Whether raw template text has a `\x` or `\u` escape that is not exactly `\xHH`,
/// `\uHHHH` or `\u{H…}`.
fn has_malformed_hex_escape(raw: &[u8]) -> bool {
    let hex = |at: usize, count: usize| {
        raw.get(at..at + count).is_some_and(|digits| digits.iter().all(u8::is_ascii_hexdigit))
    };
    let mut at = 0;
    while at < raw.len() {
        if raw[at] != b'\\' {
            at += 1;
            continue;
        }
        let well_formed = match raw.get(at + 1) {
            Some(b'x') => hex(at + 2, 2),
            Some(b'u') if raw.get(at + 2) == Some(&b'{') => {
                let digits = raw[at + 3..].iter().take_while(|b| b.is_ascii_hexdigit()).count();
                digits > 0 && raw.get(at + 3 + digits) == Some(&b'}')
            }
            Some(b'u') => hex(at + 2, 4),
            _ => true,
        };
        if !well_formed {
            return true;
        }
        at += 2;
    }
    false
}

/// Whether an operand is an unparenthesized `as`/`satisfies` cast. Such an operand is
/// given up on: oxc and the reference do not always agree on how far the cast reaches
/// (`c & a < b as T + 1`), and `a + b as T * c` (TypeScript: `((a + b) as T) * c`) would
/// read `a + b * c` once blanked, which the reference refuses.
fn is_cast(operand: &Expression<'_>) -> bool {
    matches!(operand, Expression::TSAsExpression(_) | Expression::TSSatisfiesExpression(_))
}

/// The last operand of a chain of binary operations ends with a `<` comparison.
fn ends_with_less(expression: &Expression<'_>) -> bool {
    matches!(expression, Expression::BinaryExpression(b) if b.operator == BinaryOperator::LessThan
        || ends_with_less(&b.right))
}

/// The first operand of a chain of binary operations starts with a `>`-like comparison.
fn starts_with_greater(expression: &Expression<'_>) -> bool {
    matches!(expression, Expression::BinaryExpression(b) if matches!(b.operator,
        BinaryOperator::GreaterThan | BinaryOperator::GreaterEqualThan
        | BinaryOperator::ShiftRight | BinaryOperator::ShiftRightZeroFill)
        || starts_with_greater(&b.left))
}

fn is_constructor_string(key: &PropertyKey<'_>) -> bool {
    matches!(key, PropertyKey::StringLiteral(literal) if literal.value == "constructor")
}

/// Reserved words: as a type name, oxc takes them and the reference does not.
fn is_reserved_word(name: &str) -> bool {
    matches!(
        name,
        "break"
            | "case"
            | "catch"
            | "class"
            | "const"
            | "continue"
            | "debugger"
            | "default"
            | "delete"
            | "do"
            | "else"
            | "enum"
            | "export"
            | "extends"
            | "false"
            | "finally"
            | "for"
            | "function"
            | "if"
            | "import"
            | "in"
            | "instanceof"
            | "new"
            | "null"
            | "return"
            | "super"
            | "switch"
            | "this"
            | "throw"
            | "true"
            | "try"
            | "typeof"
            | "var"
            | "void"
            | "while"
            | "with"
            | "yield"
            | "let"
            | "static"
            | "implements"
            | "interface"
            | "package"
            | "private"
            | "protected"
            | "public"
            | "await"
    )
}

/// `const x;` (or `using`) outside `declare`: refused by the reference.
fn lacks_required_initializer(declaration: &VariableDeclaration<'_>) -> bool {
    !matches!(declaration.kind, VariableDeclarationKind::Var | VariableDeclarationKind::Let)
        && declaration.declarations.iter().any(|d| d.init.is_none())
}

/// A getter with parameters or a setter without exactly one (not a rest): the reference
/// refuses them while parsing.
fn has_wrong_accessor_arity(function: &Function<'_>, getter: bool, setter: bool) -> bool {
    let rest = function.params.rest.is_some();
    let arity = function.params.items.len() + usize::from(rest);
    (getter && arity != 0) || (setter && (arity != 1 || rest))
}

/// A key the reference takes in a type literal or interface member: a name, a string, a
/// number, or a computed key (a BigInt key, for one, it refuses).
fn is_plain_signature_key(key: &PropertyKey<'_>, computed: bool) -> bool {
    computed
        || matches!(
            key,
            PropertyKey::StaticIdentifier(_)
                | PropertyKey::StringLiteral(_)
                | PropertyKey::NumericLiteral(_)
        )
}

fn has_initializer(function: &Function<'_>) -> bool {
    function.params.items.iter().any(|parameter| parameter.initializer.is_some())
}

/// Identifiers the reference refuses in places oxc accepts them (strict-mode reserved
/// words in sloppy code, `arguments` in class fields, `eval`/`arguments` bindings), and
/// words that begin TypeScript declarations when a line break follows.
fn is_touchy_identifier(name: &str) -> bool {
    matches!(
        name,
        "arguments"
            | "eval"
            | "using"
            | "let"
            | "static"
            | "yield"
            | "await"
            | "implements"
            | "interface"
            | "package"
            | "private"
            | "protected"
            | "public"
    )
}

fn is_declaration_keyword_statement(name: &str) -> bool {
    matches!(
        name,
        "namespace"
            | "module"
            | "declare"
            | "abstract"
            | "type"
            | "interface"
            | "global"
            | "async"
            | "enum"
            | "let"
            | "readonly"
            | "accessor"
            | "using"
    )
}

/// A statement that is a declaration (not allowed as the body of `if` or a loop by the
/// reference, while oxc allows Annex B's `if (x) function f() {}`).
fn is_declaration(statement: &Statement<'_>) -> bool {
    match statement {
        Statement::VariableDeclaration(declaration) => {
            declaration.kind != VariableDeclarationKind::Var
        }
        statement => statement.is_declaration(),
    }
}

/// How a statement list ended: where its last statement ends, and whether the last
/// kept one ends with `;` (what the next statement's erasure depends on).
#[derive(Clone, Copy, Default)]
struct ListEnd {
    last_statement_end: Option<u32>,
    previous_ends_with_semicolon: Option<bool>,
}

/// What a statement in a list becomes.
enum Erase {
    Keep,
    Whole,
    GiveUp,
}

fn erased_statement(statement: &Statement<'_>) -> Erase {
    match statement {
        Statement::TSTypeAliasDeclaration(_) | Statement::TSInterfaceDeclaration(_) => Erase::Whole,
        Statement::VariableDeclaration(declaration) if declaration.declare => {
            // An initializer in ambient code is refused by the reference.
            if declaration.declarations.iter().any(|d| d.init.is_some()) {
                Erase::GiveUp
            } else {
                Erase::Whole
            }
        }
        Statement::FunctionDeclaration(function) if function.id.is_none() => Erase::GiveUp,
        Statement::FunctionDeclaration(function) if function.declare || function.body.is_none() => {
            // The reference refuses default values in a signature, and `declare async`.
            if has_initializer(function) || function.r#async || function.generator {
                Erase::GiveUp
            } else {
                Erase::Whole
            }
        }
        Statement::ClassDeclaration(class) if class.id.is_none() => Erase::GiveUp,
        Statement::ClassDeclaration(class) if class.declare => {
            if class.decorators.is_empty() {
                Erase::Whole
            } else {
                Erase::GiveUp
            }
        }
        Statement::TSEnumDeclaration(_)
        | Statement::TSExternalModuleDeclaration(_)
        | Statement::TSNamespaceDeclaration(_)
        | Statement::TSGlobalDeclaration(_)
        | Statement::TSImportEqualsDeclaration(_) => Erase::GiveUp,
        statement if statement.is_module_declaration() => Erase::GiveUp,
        _ => Erase::Keep,
    }
}

fn accessibility_word(accessibility: TSAccessibility) -> &'static str {
    match accessibility {
        TSAccessibility::Public => "public",
        TSAccessibility::Private => "private",
        TSAccessibility::Protected => "protected",
    }
}

fn is_in_or_instanceof(key: &PropertyKey<'_>) -> bool {
    matches!(key, PropertyKey::StaticIdentifier(name) if name.name == "in" || name.name == "instanceof")
}

/// Whether an operand of `**` is a unary or `await` expression once erased wrappers
/// are looked through: `(-x as number) ** 2` is fine, `-x as number ** 2` is not.
fn is_unary_operand(mut expression: &Expression<'_>) -> bool {
    loop {
        expression = match expression {
            Expression::TSAsExpression(e) => &e.expression,
            Expression::TSSatisfiesExpression(e) => &e.expression,
            Expression::TSNonNullExpression(e) => &e.expression,
            Expression::TSInstantiationExpression(e) => &e.expression,
            Expression::UnaryExpression(_) | Expression::AwaitExpression(_) => return true,
            _ => return false,
        };
    }
}

impl<'a> Visit<'a> for Eraser<'_> {
    fn visit_statements(&mut self, statements: &oxc_allocator::Vec<'a, Statement<'a>>) {
        self.statement_list(statements);
    }

    fn visit_statement(&mut self, statement: &Statement<'a>) {
        if self.gave_up {
            return;
        }
        // A declaration that erases entirely is only handled in a list (where the
        // previous statement is known); as the body of `if`/`while`/a label it goes to
        // the reference.
        if !matches!(erased_statement(statement), Erase::Keep) {
            self.give_up();
            return;
        }
        if let Statement::VariableDeclaration(declaration) = statement
            && lacks_required_initializer(declaration)
        {
            // `const x: T;` outside `declare`: refused by the reference.
            self.give_up();
            return;
        }
        walk::walk_statement(self, statement);
    }

    fn visit_expression_statement(&mut self, statement: &ExpressionStatement<'a>) {
        if let Expression::Identifier(identifier) = &statement.expression
            && is_declaration_keyword_statement(&identifier.name)
        {
            // `namespace\nN\n{}`: a declaration to the reference, three statements to oxc.
            self.give_up();
            return;
        }
        walk::walk_expression_statement(self, statement);
    }

    fn visit_identifier_reference(&mut self, identifier: &IdentifierReference<'a>) {
        let refused = match identifier.name.as_str() {
            // Strict code (a class, heritage included) refuses assigning it, and class
            // fields and static blocks refuse it outright.
            "arguments" => self.classes > 0,
            name => is_touchy_identifier(name),
        };
        if refused {
            self.give_up();
        }
    }

    fn visit_binding_identifier(&mut self, identifier: &BindingIdentifier<'a>) {
        if is_touchy_identifier(&identifier.name) {
            self.give_up();
        }
    }

    fn visit_numeric_literal(&mut self, literal: &NumericLiteral<'a>) {
        // Legacy octal (`010`) and leading-zero decimals (`08`): refused by the reference.
        let text = &self.bytes()[literal.span.start as usize..literal.span.end as usize];
        if text.len() > 1 && text[0] == b'0' && text[1].is_ascii_digit() {
            self.give_up();
        }
    }

    fn visit_string_literal(&mut self, literal: &StringLiteral<'a>) {
        // Octal escapes (`"\01"`): refused by the reference in strict code (a class).
        if self.classes == 0 {
            return;
        }
        let text = &self.bytes()[literal.span.start as usize..literal.span.end as usize];
        let mut at = 0;
        while let Some(offset) = text[at..].iter().position(|b| *b == b'\\') {
            let escaped = text.get(at + offset + 1).copied().unwrap_or(0);
            let after = text.get(at + offset + 2).copied().unwrap_or(0);
            if matches!(escaped, b'1'..=b'9') || (escaped == b'0' && after.is_ascii_digit()) {
                self.give_up();
                return;
            }
            at += offset + 2;
        }
    }

    fn visit_labeled_statement(&mut self, statement: &LabeledStatement<'a>) {
        // The reference refuses a duplicate label and a declaration as the body; a label
        // on a label, or on an erased declaration, is left to it.
        let name = statement.label.span;
        let body = &statement.body;
        let text = self.source.get(name.start as usize..name.end as usize).unwrap_or("\\");
        // Escaped or non-ASCII names compare by value in the reference; reserved words
        // are refused in strict code; the reference also sees labels outside a static
        // block or field: all left to it.
        let plain_name = text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
            && !is_touchy_identifier(text)
            && !is_reserved_word(text);
        if !plain_name
            || self.all_labels.iter().any(|label| {
                self.source.get(label.start as usize..label.end as usize) == Some(text)
            })
            || is_declaration(body)
            || matches!(body, Statement::LabeledStatement(_))
            || !matches!(erased_statement(body), Erase::Keep)
        {
            self.give_up();
            return;
        }
        let is_loop = matches!(
            body,
            Statement::ForStatement(_)
                | Statement::ForInStatement(_)
                | Statement::ForOfStatement(_)
                | Statement::WhileStatement(_)
                | Statement::DoWhileStatement(_)
        );
        self.jumps.labels.push((name, is_loop));
        self.all_labels.push(name);
        self.visit_statement(body);
        self.all_labels.pop();
        self.jumps.labels.pop();
    }

    fn visit_break_statement(&mut self, statement: &BreakStatement<'a>) {
        let known = match &statement.label {
            Some(label) => self.label_index(label.span).is_some(),
            None => self.jumps.loops > 0 || self.jumps.switches > 0,
        };
        if !known {
            self.give_up();
        }
    }

    fn visit_continue_statement(&mut self, statement: &ContinueStatement<'a>) {
        let known = match &statement.label {
            Some(label) => {
                self.label_index(label.span).is_some_and(|index| self.jumps.labels[index].1)
            }
            None => self.jumps.loops > 0,
        };
        if !known {
            self.give_up();
        }
    }

    fn visit_if_statement(&mut self, statement: &IfStatement<'a>) {
        if is_declaration(&statement.consequent)
            || statement.alternate.as_ref().is_some_and(is_declaration)
        {
            self.give_up();
            return;
        }
        walk::walk_if_statement(self, statement);
    }

    fn visit_switch_statement(&mut self, statement: &SwitchStatement<'a>) {
        self.jumps.switches += 1;
        walk::walk_switch_statement(self, statement);
        self.jumps.switches -= 1;
    }

    fn visit_while_statement(&mut self, statement: &WhileStatement<'a>) {
        if self.enter_loop(&statement.body) {
            walk::walk_while_statement(self, statement);
            self.jumps.loops -= 1;
        }
    }

    fn visit_do_while_statement(&mut self, statement: &DoWhileStatement<'a>) {
        if self.enter_loop(&statement.body) {
            walk::walk_do_while_statement(self, statement);
            self.jumps.loops -= 1;
        }
    }

    fn visit_for_statement(&mut self, statement: &ForStatement<'a>) {
        if let Some(ForStatementInit::VariableDeclaration(declaration)) = &statement.init
            && lacks_required_initializer(declaration)
        {
            self.give_up();
            return;
        }
        if self.enter_loop(&statement.body) {
            walk::walk_for_statement(self, statement);
            self.jumps.loops -= 1;
        }
    }

    fn visit_for_in_statement(&mut self, statement: &ForInStatement<'a>) {
        if annotated_or_initialized(&statement.left) {
            self.give_up();
            return;
        }
        if self.enter_loop(&statement.body) {
            walk::walk_for_in_statement(self, statement);
            self.jumps.loops -= 1;
        }
    }

    fn visit_for_of_statement(&mut self, statement: &ForOfStatement<'a>) {
        if annotated_or_initialized(&statement.left)
            || (statement.r#await && self.static_blocks > 0)
        {
            self.give_up();
            return;
        }
        if self.enter_loop(&statement.body) {
            walk::walk_for_of_statement(self, statement);
            self.jumps.loops -= 1;
        }
    }

    fn visit_function(&mut self, function: &Function<'a>, flags: ScopeFlags) {
        self.allow_return_predicate(function.return_type.as_deref());
        let saved = self.jumps.enter_function();
        walk::walk_function(self, function, flags);
        self.jumps = saved;
    }

    fn visit_declaration(&mut self, declaration: &Declaration<'a>) {
        if let Declaration::VariableDeclaration(variable) = declaration
            && variable.declare
            && self.checking == 0
        {
            self.give_up();
            return;
        }
        walk::walk_declaration(self, declaration);
    }

    fn visit_function_body(&mut self, body: &FunctionBody<'a>) {
        // A body in erased (ambient) code is refused by the reference.
        if !body.directives.is_empty() || self.checking > 0 {
            // A directive makes the code strict, where the reference refuses more than
            // oxc's parser does; directives are rare in programs, so give up on them.
            self.give_up();
            return;
        }
        self.prologue = true;
        walk::walk_function_body(self, body);
        self.prologue = false;
    }

    fn visit_class(&mut self, class: &Class<'a>) {
        if self.gave_up {
            return;
        }
        // All of a class is strict code, its heritage expression included. (Every early
        // return below gives up first, after which no counter is read.)
        self.classes += 1;
        if !class.decorators.is_empty()
            || (class.declare && self.checking == 0)
            || class.id.as_ref().is_some_and(|id| is_touchy_identifier(&id.name))
        {
            self.give_up();
            return;
        }
        if class.r#abstract {
            let Some(next) = self.next_token(class.span.start) else {
                return;
            };
            if !self.source[next.at as usize..].starts_with("abstract") {
                self.give_up();
                return;
            }
            self.blank(next.at, next.at + 8);
        }
        if let Some(parameters) = &class.type_parameters {
            self.visit_ts_type_parameter_declaration(parameters);
        }
        if let Some(heritage) = &class.heritage {
            self.visit_expression(&heritage.expression);
            if let Some(arguments) = &heritage.type_arguments {
                self.visit_ts_type_parameter_instantiation(arguments);
            }
        }
        if let (Some(first), Some(last)) = (class.implements.first(), class.implements.last()) {
            let before = [
                class.id.as_ref().map(|id| id.span.end),
                class.type_parameters.as_ref().map(|p| p.span.end),
                class.heritage.as_ref().map(|h| h.expression.span().end),
                class.heritage.as_ref().and_then(|h| h.type_arguments.as_ref().map(|a| a.span.end)),
            ]
            .into_iter()
            .flatten()
            .max();
            let Some(before) = before else {
                self.give_up();
                return;
            };
            let Some(next) = self.next_token(before) else {
                return;
            };
            let keyword_end = next.at as usize + "implements".len();
            if !self.source[next.at as usize..].starts_with("implements")
                || next.at >= first.span.start
                || self.bytes().get(keyword_end).is_some_and(|b| b.is_ascii_alphanumeric())
            {
                self.give_up();
                return;
            }
            self.blank(next.at, last.span.end);
            self.check(|eraser| eraser.visit_ts_class_implements_list(&class.implements));
        }
        let saved = self.class;
        self.class =
            ClassContext { is_abstract: class.r#abstract, extends: class.heritage.is_some() };
        self.class_members(&class.body);
        self.classes -= 1;
        self.class = saved;
    }

    fn visit_formal_parameter(&mut self, parameter: &FormalParameter<'a>) {
        if self.gave_up {
            return;
        }
        if !parameter.decorators.is_empty()
            || parameter.accessibility.is_some()
            || parameter.readonly
            || parameter.r#override
            // `([a]?) => a` is refused by the reference.
            || (parameter.optional && !matches!(parameter.pattern, BindingPattern::BindingIdentifier(_)))
            // A default value in a signature or a function type.
            || (parameter.initializer.is_some() && self.checking > 0)
        {
            self.give_up();
            return;
        }
        self.visit_binding_pattern(&parameter.pattern);
        if parameter.optional {
            let Some(at) = self.expect_punctuator(parameter.pattern.span().end, b'?') else {
                return;
            };
            self.blank(at, at + 1);
        }
        if let Some(annotation) = &parameter.type_annotation {
            self.visit_ts_type_annotation(annotation);
        }
        if let Some(initializer) = &parameter.initializer {
            self.visit_expression(initializer);
        }
    }

    fn visit_ts_this_parameter(&mut self, parameter: &TSThisParameter<'a>) {
        let Some(next) = self.next_token(parameter.span.end) else {
            return;
        };
        // oxc also takes `this: A b` (no comma); the reference does not.
        if !matches!(next.byte, b',' | b')') {
            self.give_up();
            return;
        }
        let end = if next.byte == b',' { next.at + 1 } else { parameter.span.end };
        self.blank(parameter.span.start, end);
        self.check(|eraser| walk::walk_ts_this_parameter(eraser, parameter));
    }

    fn visit_variable_declarator(&mut self, declarator: &VariableDeclarator<'a>) {
        if declarator.definite {
            let Some(at) = self.expect_punctuator(declarator.id.span().end, b'!') else {
                return;
            };
            self.blank(at, at + 1);
        }
        walk::walk_variable_declarator(self, declarator);
    }

    fn visit_arrow_function_expression(&mut self, arrow: &ArrowFunctionExpression<'a>) {
        if self.gave_up {
            return;
        }
        // `(p): A | (T) => p`: the reference reads `(T) => p` as a function type (a
        // parenthesized type on its own is fine).
        let return_type_ends_with_parenthesis = arrow.return_type.as_ref().is_some_and(|r| {
            let parenthesized_type = matches!(&r.type_annotation, TSType::TSParenthesizedType(p)
                if matches!(p.type_annotation, TSType::TSUnionType(_) | TSType::TSIntersectionType(_)));
            self.bytes().get(r.span.end as usize - 1) == Some(&b')')
                && (!parenthesized_type || arrow.params.items.is_empty())
        });
        if return_type_ends_with_parenthesis {
            self.give_up();
            return;
        }
        // `a ? (x): T => x : y`: the reference reads the return type's `:` as the
        // conditional's.
        if self.consequents > 0 && arrow.return_type.is_some() {
            self.give_up();
            return;
        }
        self.move_arrow_parentheses(arrow);
        self.allow_return_predicate(arrow.return_type.as_deref());
        if matches!(arrow.body, ArrowFunctionBody::FunctionBody(_)) {
            // The reference refuses a block-bodied arrow followed, on the next line, by
            // a token that could continue an expression (`() => {}\n+x`).
            let Some(next) = self.next_token(arrow.span.end) else {
                return;
            };
            let ends = next.byte.is_ascii_alphanumeric()
                || matches!(
                    next.byte,
                    b'_' | b'$' | b'}' | b';' | b')' | b']' | b',' | b'\'' | b'"'
                );
            if next.after_line_break && !ends {
                self.give_up();
                return;
            }
        }
        let saved = self.jumps.enter_function();
        walk::walk_arrow_function_expression(self, arrow);
        self.jumps = saved;
    }

    fn visit_binary_expression(&mut self, expression: &BinaryExpression<'a>) {
        if (expression.operator == BinaryOperator::Exponential
            && is_unary_operand(&expression.left))
            || is_cast(&expression.left)
            || is_cast(&expression.right)
            || (ends_with_less(&expression.left) && starts_with_greater(&expression.right))
        {
            self.give_up();
            return;
        }
        // `f < T > x` reads as type arguments to the reference (and fails), as two
        // comparisons to oxc.
        if matches!(
            expression.operator,
            BinaryOperator::GreaterThan
                | BinaryOperator::GreaterEqualThan
                | BinaryOperator::ShiftRight
                | BinaryOperator::ShiftRightZeroFill
        ) && matches!(&expression.left, Expression::BinaryExpression(left) if left.operator == BinaryOperator::LessThan)
        {
            self.give_up();
            return;
        }
        // `f < a < T >> (x)` parses as `(f < a) < (T >> x)`: the same ambiguity.
        let is_less = |e: &Expression<'_>| matches!(e, Expression::BinaryExpression(b) if b.operator == BinaryOperator::LessThan);
        let is_closing = |e: &Expression<'_>| {
            matches!(e, Expression::BinaryExpression(b) if matches!(b.operator,
                BinaryOperator::GreaterThan | BinaryOperator::GreaterEqualThan
                | BinaryOperator::ShiftRight | BinaryOperator::ShiftRightZeroFill
                | BinaryOperator::LessThan))
        };
        if expression.operator == BinaryOperator::LessThan
            && (is_less(&expression.left) || is_closing(&expression.right))
        {
            self.give_up();
            return;
        }
        walk::walk_binary_expression(self, expression);
    }

    fn visit_conditional_expression(&mut self, expression: &ConditionalExpression<'a>) {
        self.visit_expression(&expression.test);
        self.consequents += 1;
        self.visit_expression(&expression.consequent);
        self.consequents -= 1;
        self.visit_expression(&expression.alternate);
    }

    fn visit_ts_index_signature_name(&mut self, name: &TSIndexSignatureName<'a>) {
        if is_reserved_word(&name.name) || is_touchy_identifier(&name.name) {
            self.give_up();
            return;
        }
        walk::walk_ts_index_signature_name(self, name);
    }

    fn visit_template_literal(&mut self, literal: &TemplateLiteral<'a>) {
        // Malformed `\x`/`\u` escapes (allowed in tagged templates, e.g. `\u1_`) are read
        // differently by the reference.
        if literal.quasis.iter().any(|quasi| has_malformed_hex_escape(quasi.value.raw.as_bytes())) {
            self.give_up();
            return;
        }
        walk::walk_template_literal(self, literal);
    }

    fn visit_logical_expression(&mut self, expression: &LogicalExpression<'a>) {
        if is_cast(&expression.left) || is_cast(&expression.right) {
            self.give_up();
            return;
        }
        walk::walk_logical_expression(self, expression);
    }

    fn visit_assignment_expression(&mut self, expression: &AssignmentExpression<'a>) {
        // `a as const = 1`: the reference refuses a cast as an assignment target.
        if matches!(
            expression.left,
            AssignmentTarget::TSAsExpression(_)
                | AssignmentTarget::TSSatisfiesExpression(_)
                | AssignmentTarget::TSNonNullExpression(_)
                | AssignmentTarget::TSTypeAssertion(_)
        ) {
            self.give_up();
            return;
        }
        walk::walk_assignment_expression(self, expression);
    }

    fn visit_simple_assignment_target(&mut self, target: &SimpleAssignmentTarget<'a>) {
        // `[a as const] = b`, `for (a as const of b)`: refused by the reference.
        if matches!(
            target,
            SimpleAssignmentTarget::TSAsExpression(_)
                | SimpleAssignmentTarget::TSSatisfiesExpression(_)
                | SimpleAssignmentTarget::TSNonNullExpression(_)
                | SimpleAssignmentTarget::TSTypeAssertion(_)
        ) {
            self.give_up();
            return;
        }
        walk::walk_simple_assignment_target(self, target);
    }

    fn visit_property_key(&mut self, key: &PropertyKey<'a>) {
        // `{ async 1n() {} }`: BigInt keys are refused by the reference in places.
        if matches!(key, PropertyKey::BigIntLiteral(_)) {
            self.give_up();
            return;
        }
        walk::walk_property_key(self, key);
    }

    fn visit_sequence_expression(&mut self, expression: &SequenceExpression<'a>) {
        // `a < 1, 1 > {}`: the reference reads `<1, 1>` as type arguments.
        let mut less = false;
        for element in &expression.expressions {
            if less && starts_with_greater(element) {
                self.give_up();
                return;
            }
            less |= ends_with_less(element);
        }
        walk::walk_sequence_expression(self, expression);
    }

    fn visit_object_property(&mut self, property: &ObjectProperty<'a>) {
        // Accessor parameter counts: checked by the reference while parsing.
        if let Expression::FunctionExpression(function) = &property.value
            && has_wrong_accessor_arity(
                function,
                property.kind == PropertyKind::Get,
                property.kind == PropertyKind::Set,
            )
        {
            self.give_up();
            return;
        }
        walk::walk_object_property(self, property);
    }

    fn visit_variable_declaration(&mut self, declaration: &VariableDeclaration<'a>) {
        // `using` declarations: rare, and checked differently by the two parsers.
        if matches!(
            declaration.kind,
            VariableDeclarationKind::Using | VariableDeclarationKind::AwaitUsing
        ) {
            self.give_up();
            return;
        }
        walk::walk_variable_declaration(self, declaration);
    }

    fn visit_ts_type_annotation(&mut self, annotation: &TSTypeAnnotation<'a>) {
        self.blank_span(annotation.span);
        self.check(|eraser| walk::walk_ts_type_annotation(eraser, annotation));
    }

    fn visit_ts_type_parameter_declaration(&mut self, parameters: &TSTypeParameterDeclaration<'a>) {
        self.blank_span(parameters.span);
        self.check(|eraser| walk::walk_ts_type_parameter_declaration(eraser, parameters));
    }

    fn visit_ts_type_parameter_instantiation(
        &mut self,
        arguments: &TSTypeParameterInstantiation<'a>,
    ) {
        // `A<<T>(a: T) => T>`: the reference lexes `<<`.
        if self.next_token(arguments.span.start + 1).is_some_and(|next| next.byte == b'<') {
            self.give_up();
            return;
        }
        self.blank_span(arguments.span);
        self.check(|eraser| walk::walk_ts_type_parameter_instantiation(eraser, arguments));
    }

    fn visit_ts_as_expression(&mut self, expression: &TSAsExpression<'a>) {
        self.erase_postfix_assertion(&expression.expression, expression.span);
        // `as const` is the one place `const` names a type.
        let as_const = matches!(&expression.type_annotation,
            TSType::TSTypeReference(reference) if reference.type_arguments.is_none()
                && matches!(&reference.type_name, TSTypeName::IdentifierReference(name) if name.name == "const"));
        if !as_const {
            self.check(|eraser| eraser.visit_ts_type(&expression.type_annotation));
        }
    }

    fn visit_ts_satisfies_expression(&mut self, expression: &TSSatisfiesExpression<'a>) {
        self.erase_postfix_assertion(&expression.expression, expression.span);
        self.check(|eraser| eraser.visit_ts_type(&expression.type_annotation));
    }

    fn visit_formal_parameters(&mut self, parameters: &FormalParameters<'a>) {
        self.parameters += 1;
        walk::walk_formal_parameters(self, parameters);
        self.parameters -= 1;
    }

    fn visit_await_expression(&mut self, expression: &AwaitExpression<'a>) {
        // In a static block `await` is reserved; oxc lets it through from the async
        // wrapper, the reference does not.
        if self.parameters > 0 || self.static_blocks > 0 {
            self.give_up();
            return;
        }
        walk::walk_await_expression(self, expression);
    }

    fn visit_yield_expression(&mut self, expression: &YieldExpression<'a>) {
        if self.parameters > 0 {
            self.give_up();
            return;
        }
        walk::walk_yield_expression(self, expression);
    }

    fn visit_ts_type_reference(&mut self, reference: &TSTypeReference<'a>) {
        if type_name_is_reserved(&reference.type_name) {
            self.give_up();
            return;
        }
        walk::walk_ts_type_reference(self, reference);
    }

    fn visit_ts_function_type(&mut self, function: &TSFunctionType<'a>) {
        self.expect_arrow(function.params.span.end);
        self.allow_return_predicate(Some(&function.return_type));
        walk::walk_ts_function_type(self, function);
    }

    fn visit_ts_constructor_type(&mut self, constructor: &TSConstructorType<'a>) {
        self.expect_arrow(constructor.params.span.end);
        walk::walk_ts_constructor_type(self, constructor);
    }

    fn visit_ts_method_signature(&mut self, signature: &TSMethodSignature<'a>) {
        let plain_key = is_plain_signature_key(&signature.key, signature.computed);
        if signature.kind != TSMethodSignatureKind::Method || !plain_key {
            self.give_up();
            return;
        }
        self.allow_return_predicate(signature.return_type.as_deref());
        walk::walk_ts_method_signature(self, signature);
    }

    fn visit_ts_call_signature_declaration(&mut self, signature: &TSCallSignatureDeclaration<'a>) {
        self.allow_return_predicate(signature.return_type.as_deref());
        walk::walk_ts_call_signature_declaration(self, signature);
    }

    fn visit_ts_type_predicate(&mut self, predicate: &TSTypePredicate<'a>) {
        // The predicate is visited right after its function registered it: look from
        // the end, and forget it once seen.
        let Some(index) = self.return_predicates.iter().rposition(|&at| at == predicate.span.start)
        else {
            self.give_up();
            return;
        };
        self.return_predicates.swap_remove(index);
        if let TSTypePredicateName::Identifier(name) = &predicate.parameter_name
            && (is_reserved_word(&name.name) || is_touchy_identifier(&name.name))
        {
            self.give_up();
            return;
        }
        walk::walk_ts_type_predicate(self, predicate);
    }

    fn visit_ts_type_literal(&mut self, literal: &TSTypeLiteral<'a>) {
        self.expect_member_separators(&literal.members);
        walk::walk_ts_type_literal(self, literal);
    }

    fn visit_ts_interface_body(&mut self, body: &TSInterfaceBody<'a>) {
        self.expect_member_separators(&body.body);
        walk::walk_ts_interface_body(self, body);
    }

    // JSDoc types (`A?`, `?A`, `A!`, `!A`, `*`): refused by the reference.
    fn visit_js_doc_nullable_type(&mut self, _: &JSDocNullableType<'a>) {
        self.give_up();
    }

    fn visit_js_doc_non_nullable_type(&mut self, _: &JSDocNonNullableType<'a>) {
        self.give_up();
    }

    fn visit_js_doc_unknown_type(&mut self, _: &JSDocUnknownType) {
        self.give_up();
    }

    fn visit_ts_non_null_expression(&mut self, expression: &TSNonNullExpression<'a>) {
        self.erase_suffix(&expression.expression, expression.span);
    }

    fn visit_ts_instantiation_expression(&mut self, expression: &TSInstantiationExpression<'a>) {
        // `a?.b<T>`: the reference keeps the type arguments.
        if matches!(expression.expression, Expression::ChainExpression(_)) {
            self.give_up();
            return;
        }
        self.erase_suffix(&expression.expression, expression.span);
        self.visit_ts_type_parameter_instantiation(&expression.type_arguments);
        // `f<T> {}` and other continuations are refused by the reference.
        if let Some(next) = self.next_token(expression.span.end)
            && !matches!(next.byte, b';' | b')' | b']' | b'}' | b',')
        {
            self.give_up();
        }
    }

    // What the reference refuses or rewrites in ways this walker does not copy.
    fn visit_ts_type_assertion(&mut self, _: &TSTypeAssertion<'a>) {
        self.give_up();
    }

    /// swc refuses `with` in TypeScript; oxc parses it in sloppy code.
    fn visit_with_statement(&mut self, _: &WithStatement<'a>) {
        self.give_up();
    }

    fn visit_decorator(&mut self, _: &Decorator<'a>) {
        self.give_up();
    }

    fn visit_ts_enum_declaration(&mut self, _: &TSEnumDeclaration<'a>) {
        self.give_up();
    }

    fn visit_ts_import_equals_declaration(&mut self, _: &TSImportEqualsDeclaration<'a>) {
        self.give_up();
    }

    /// Every type is reached through a node blanked whole above, and walked only for
    /// its checks; a type reached otherwise means a construct this walker does not know.
    fn visit_ts_type(&mut self, ty: &TSType<'a>) {
        if self.checking == 0 {
            self.give_up();
            return;
        }
        // Kinds of type rare in programs, where oxc takes forms the reference refuses
        // (`import("m", { assert: … })`, `asserts is {}`, `intrinsic`, JSDoc types).
        let rare = match ty {
            TSType::TSImportType(_)
            | TSType::TSTemplateLiteralType(_)
            | TSType::TSIntrinsicKeyword(_)
            | TSType::TSConstructorType(_)
            | TSType::JSDocNullableType(_)
            | TSType::JSDocNonNullableType(_)
            | TSType::JSDocUnknownType(_) => true,
            // `asserts x`, and `asserts is T` (oxc reads a parameter named `asserts`).
            TSType::TSTypePredicate(predicate) => {
                predicate.asserts
                    || matches!(&predicate.parameter_name,
                        TSTypePredicateName::Identifier(name) if name.name == "asserts")
            }
            TSType::TSTypeQuery(query) => {
                query.type_arguments.is_some()
                    || match &query.expr_name {
                        TSTypeQueryExprName::TSImportType(_) => true,
                        name => name.as_ts_type_name().is_none_or(type_name_is_reserved),
                    }
            }
            _ => false,
        };
        if rare {
            self.give_up();
            return;
        }
        walk::walk_ts_type(self, ty);
    }

    fn visit_ts_class_implements(&mut self, implements: &TSClassImplements<'a>) {
        if type_name_is_reserved(&implements.expression) {
            self.give_up();
            return;
        }
        walk::walk_ts_class_implements(self, implements);
    }

    fn visit_ts_property_signature(&mut self, signature: &TSPropertySignature<'a>) {
        let plain_key = is_plain_signature_key(&signature.key, signature.computed);
        if !plain_key {
            self.give_up();
            return;
        }
        walk::walk_ts_property_signature(self, signature);
    }

    fn visit_ts_type_parameter(&mut self, parameter: &TSTypeParameter<'a>) {
        // Variance modifiers: the reference also checks their order.
        if parameter.r#in || parameter.out {
            self.give_up();
            return;
        }
        walk::walk_ts_type_parameter(self, parameter);
    }

    fn visit_assignment_pattern(&mut self, pattern: &AssignmentPattern<'a>) {
        // A default value inside a pattern in a signature (`declare function f([a = 1])`).
        if self.checking > 0 {
            self.give_up();
            return;
        }
        walk::walk_assignment_pattern(self, pattern);
    }
}

/// Applies the edits to `source[keep]` (edits never reach outside it): blanked text
/// keeps its UTF-16 length, its line terminators and its whitespace; a put replaces one
/// character with an ASCII one padded to the same UTF-16 length. `None` (the reference
/// decides) on edits that do not fit the text.
fn render(
    source: &str,
    keep: std::ops::Range<usize>,
    mut blanks: Vec<(u32, u32)>,
    mut puts: Vec<(u32, u8)>,
) -> Option<String> {
    blanks.sort_unstable();
    puts.sort_unstable();
    puts.dedup();
    if puts.windows(2).any(|pair| pair[0].0 == pair[1].0) {
        return None;
    }
    let mut output = Vec::with_capacity(keep.len());
    let mut puts = puts.into_iter().peekable();
    let mut copied = keep.start;
    let mut index = 0;
    while index < blanks.len() {
        let (start, mut end) = blanks[index];
        index += 1;
        while let Some(&(next_start, next_end)) = blanks.get(index) {
            if next_start > end {
                break;
            }
            end = end.max(next_end);
            index += 1;
        }
        let (start, end) = (start as usize, end as usize);
        if start < copied || end > keep.end {
            return None;
        }
        copied = apply_puts(source, &mut output, copied, start, &mut puts, false)?;
        copied = apply_puts(source, &mut output, copied, end, &mut puts, true)?;
    }
    apply_puts(source, &mut output, copied, keep.end, &mut puts, false)?;
    if puts.next().is_some() {
        return None;
    }
    String::from_utf8(output).ok()
}

/// Copies (or blanks) `source[from..to]` into `output`, replacing the characters that
/// puts name. Returns where it stopped (after a replaced character that reaches past
/// `to`).
fn apply_puts(
    source: &str,
    output: &mut Vec<u8>,
    mut from: usize,
    to: usize,
    puts: &mut std::iter::Peekable<std::vec::IntoIter<(u32, u8)>>,
    blanking: bool,
) -> Option<usize> {
    let emit = |output: &mut Vec<u8>, text: &str| {
        if blanking { push_blank(output, text) } else { output.extend_from_slice(text.as_bytes()) }
    };
    while let Some(&(at, byte)) = puts.peek() {
        let at = at as usize;
        if at >= to {
            break;
        }
        puts.next();
        if at < from || !byte.is_ascii() {
            return None;
        }
        emit(output, source.get(from..at)?);
        let character = source.get(at..)?.chars().next()?;
        output.push(byte);
        output.resize(output.len() + character.len_utf16() - 1, b' ');
        from = at + character.len_utf8();
    }
    if from < to {
        emit(output, source.get(from..to)?);
    }
    Some(from.max(to))
}

/// Blanks `text`: whitespace and line terminators stay, everything else becomes as many
/// spaces as it has UTF-16 units.
fn push_blank(output: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if byte.is_ascii() {
            output.push(if matches!(byte, b'\t'..=b'\r' | b' ') { byte } else { b' ' });
            at += 1;
            continue;
        }
        let Some(character) = text[at..].chars().next() else {
            return;
        };
        match character {
            '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}' => {
                let mut buffer = [0; 4];
                output.extend_from_slice(character.encode_utf8(&mut buffer).as_bytes());
            }
            _ => output.resize(output.len() + character.len_utf16(), b' '),
        }
        at += character.len_utf8();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::strip::strip_types_reference;

    /// Programs whose `;`-then-line-break positions include every way a cut can go
    /// wrong: inside a block, a template, a comment, before `else`, next to an erased
    /// declaration, after a statement continued past its `;`-looking text, with
    /// directives, with sloppy-only code after a directive.
    const CUT_CORPUS: &[&str] = &[
        "let a: number = 1;\nlet b = a as number;\nreturn a + b;\n",
        "if (x) a = 1;\nelse a = 2;\nreturn a;",
        "const t = `one;\ntwo;\n${x as number};\n`;\nreturn t;",
        "/* a;\n b; */ let c: string = 'x';\nlet d = c;\n",
        "let a = 1 // note;\n(b as any)();\nlet c: number = 2;\n",
        "let a = 1\ntype T = number;\ninterface I { x: T }\nlet b: T = 2;\n",
        "let a = 1;\ntype T = number;\ninterface I {}\nlet b: T = 2;\n",
        "'use strict';\nlet a: number = 1;\nlet b = 010;\n",
        "let a = 1;\n'use strict';\nwith (o) {}\n",
        "function f(): void {\n  let a: number = 1;\n  let b: number = 2;\n}\nf();\n",
        "{\n  let a: number = 1;\n  let b = 2;\n}\nlet c = 3;\n",
        "do x++;\nwhile (x < 3);\nlet y: number = x;\n",
        "let s = 'a;\\\nb';\nlet t: string = s;\n",
        "let r = /;\\n/;\nlet u: RegExp = r;\n",
        "for (let i = 0;\ni < 3;\ni++) {}\nlet z: number = 0;\n",
        "class A {\n  x: number = 1;\n  y!: string;\n}\nnew A();\n",
        "let a = b;\r\nlet c: number = 1;\r\nreturn c;\r\n",
        "let a: number = 1;\n\"not a directive\";\nlet b = a!;\n",
        "x = 1;\n[1, 2].forEach((n: number) => n);\n",
        "declare let q: number;\nlet w = q;\n",
    ];

    fn cuts(code: &str) -> Vec<usize> {
        let bytes = code.as_bytes();
        (1..bytes.len())
            .filter(|&at| bytes[at - 1] == b';' && matches!(bytes[at], b'\n' | b'\r'))
            .collect()
    }

    #[test]
    fn a_cut_program_strips_exactly_like_the_reference_or_not_at_all() {
        let mut accepted = 0;
        for code in CUT_CORPUS {
            let reference = strip_types_reference(code);
            for cut in cuts(code) {
                if let Some(halves) = strip_in_parts(code, &[cut]) {
                    assert_eq!(Ok(&halves), reference.as_ref(), "cut at {cut} of {code:?}");
                    accepted += 1;
                }
            }
        }
        // The cut is really taken where it is safe (a test that cannot fail is no test).
        assert!(accepted >= 20, "only {accepted} cuts accepted");
    }

    #[test]
    fn unsafe_cuts_are_refused() {
        let refused = [
            ("if (x) a = 1;\nelse a = 2;\nreturn a;", "if (x) a = 1;".len()),
            ("const t = `one;\ntwo`;\nreturn t;", "const t = `one;".len()),
            ("/* a;\n b; */ let c: string = 'x';\n", "/* a;".len()),
            ("let a = 1\ntype T = number;\nlet b: T = 2;\n", "let a = 1\ntype T = number;".len()),
            (
                "'use strict';\nlet a: number = 1;\nlet b = 1;\n",
                "'use strict';\nlet a: number = 1;".len(),
            ),
            ("let a = 1;\n'use strict';\nlet b = 1;\n", "let a = 1;".len()),
            ("{\n  let a: number = 1;\n  let b = 2;\n}\n", "{\n  let a: number = 1;".len()),
        ];
        for (code, cut) in refused {
            assert_eq!(code.as_bytes()[cut - 1], b';', "{code:?}");
            assert_eq!(strip_in_parts(code, &[cut]), None, "cut at {cut} of {code:?}");
        }
    }

    #[test]
    fn long_programs_are_cut_and_match_the_reference() {
        let unit =
            "let a: number = 1;\ninterface I { x: number }\nconst f = (x: I): number => x.x;\n";
        let code = unit.repeat(5 * PART_BYTES / unit.len());
        let cuts = cut_points(&code).unwrap();
        assert_eq!(cuts.len(), 4, "{cuts:?}");
        let parts = strip_in_parts(&code, &cuts).expect("cuts between statements are taken");
        assert_eq!(Ok(&parts), strip_types_reference(&code).as_ref());
        assert_eq!(strip_body(&code).as_ref(), Some(&parts));
        // Candidates inside a block are not taken (the scan tracks brackets) ...
        let block = format!("{{\n{}}}\n", unit.repeat(2 * PART_BYTES / unit.len()));
        let nested = format!("{block}{code}");
        let cuts = cut_points(&nested).unwrap();
        assert!(cuts.iter().all(|&cut| cut > block.len()), "{cuts:?}");
        let stripped = strip_in_parts(&nested, &cuts);
        assert!(stripped.is_some() && stripped == strip_types_reference(&nested).ok());
        // ... and one bad cut (inside the block) sends the program to the reference whole.
        let inside = block[..PART_BYTES].rfind(";\n").unwrap() + 1;
        assert!(strip_in_parts(&nested, &[inside, block.len() + 10 * unit.len()]).is_none());
        // No statement boundary for a whole part: not cut, not stripped here.
        let one_line = "let a: number = 1, ".repeat(2 * MAX_PART_BYTES / 19) + "b = 2;";
        assert_eq!(cut_points(&one_line), None);
    }

    #[test]
    fn statement_ends_skip_brackets_strings_comments_templates_and_regexes() {
        let code = "a;\n{ b;\n}\nc = '; x';\nd = `;\n${ e;\n }`;\n// f;\n/* g;\n*/ h = /;/;\ni;\n";
        let ends: Vec<&str> = statement_ends(code.as_bytes())
            .into_iter()
            .map(|at| &code[..at])
            .map(|prefix| prefix.rsplit('\n').next().unwrap_or(""))
            .collect();
        assert_eq!(ends, ["a;", "c = '; x';", " }`;", "*/ h = /;/;", "i;"]);
    }

    #[test]
    fn blanking_keeps_utf16_width_whitespace_and_line_terminators() {
        let mut output = Vec::new();
        push_blank(&mut output, ": \"你好\"\t\r\n\u{2028}\u{a0}😀x");
        assert_eq!(String::from_utf8(output).unwrap(), "      \t\r\n\u{2028}\u{a0}   ");
    }

    #[test]
    fn puts_replace_one_character_and_pad_to_its_width() {
        let source = "a你b";
        let rendered = render(source, 0..source.len(), vec![(4, 5)], vec![(1, b';')]).unwrap();
        assert_eq!(rendered, "a; ");
        // Two different characters at one place cannot both be put.
        assert_eq!(render(source, 0..source.len(), vec![], vec![(0, b';'), (0, b'(')]), None);
        // Edits outside the kept range are refused, not clipped.
        assert_eq!(render(source, 1..source.len(), vec![(0, 1)], vec![]), None);
    }
}
