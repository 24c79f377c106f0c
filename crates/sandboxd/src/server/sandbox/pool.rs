//! The warm pool: per template, sandboxes started ahead of demand, with envd running and
//! healthy but not yet initialized. A create that asks for nothing a pooled sandbox lacks
//! (the template's default limits) takes one, initializes it with its own env vars and
//! access token, and a refill starts in the background.
//!
//! How many (`[sandboxd] pool`): a number, or `auto` (the default), sized to demand and
//! to the machine: as many as the template's creates in the last [`DEMAND_WINDOW`], at
//! least one of the default template (`base`) and none of a template nobody asked for,
//! never more than [`machine_cap`] (two per CPU, at most 8, and a pooled sandbox's
//! memory within 1/32 of what the host has available). A pool larger than its demand
//! shrinks back as the window passes.
//!
//! A pooled sandbox is never reused: it is handed out once or killed. Until it is handed
//! out it has no record on disk (a daemon that dies leaves only a directory without a
//! record, which the next start removes) and is invisible to the API. Its envd holds a
//! random pool token, so nothing can reach it before its owner does.

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::Context;

use crate::server::files::{now_ms, random_hex};
use crate::server::lifecycle;
use crate::server::record::{Phase, Record};
use crate::server::slot::Slot;
use crate::server::{PoolSize, Shared};

/// Pooled sandboxes of `template` not yet handed out.
fn pooled(shared: &Shared, template: &str) -> usize {
    shared
        .slots()
        .iter()
        .filter(|slot| {
            let inner = slot.lock();
            inner.pooled && !inner.gone && inner.record.template_id == template
        })
        .count()
}

use crate::server::demand::DEFAULT_TEMPLATE;
pub use crate::server::demand::machine_cap;

/// How many sandboxes of `template` the pool should hold now.
fn target(shared: &Shared, template: &str) -> usize {
    match shared.config.pool {
        PoolSize::Fixed(size) => size,
        PoolSize::Auto => {
            let floor = usize::from(template == DEFAULT_TEMPLATE);
            let recent = shared.demand.recent(template, shared.config.pool_window);
            recent.max(floor).min(shared.demand.cap)
        }
    }
}

/// Takes a ready pooled sandbox of `template` out of the pool, if there is one.
pub(crate) fn take(shared: &Arc<Shared>, template: &str) -> Option<Arc<Slot>> {
    shared.demand.note(template);
    let taken = shared.slots().into_iter().find(|slot| {
        let mut inner = slot.lock();
        let ready = inner.pooled
            && !inner.gone
            && inner.envd.is_some()
            && inner.record.template_id == template;
        if ready {
            inner.pooled = false;
        }
        ready
    });
    // The refill waits a moment: starting a sandbox takes both cores of a small machine
    // for ~20 ms, which the owner's first command should not have to share.
    let shared = shared.clone();
    let template = template.to_owned();
    tokio::spawn(async move {
        tokio::time::sleep(REFILL_DELAY).await;
        refill(&shared, &template);
    });
    taken
}

/// How long after a hand-out the pool starts refilling.
const REFILL_DELAY: std::time::Duration = std::time::Duration::from_millis(50);

/// Brings the pool of `template` back to its size in the background (one refill task
/// per template at a time).
pub(crate) fn refill(shared: &Arc<Shared>, template: &str) {
    if target(shared, template) == 0 {
        return;
    }
    {
        let mut refilling = shared.refilling.lock().unwrap_or_else(|e| e.into_inner());
        if !refilling.insert(template.to_owned()) {
            return;
        }
    }
    let shared = shared.clone();
    let template = template.to_owned();
    tokio::spawn(async move {
        while !shared.stopping() && pooled(&shared, &template) < target(&shared, &template) {
            if let Err(e) = warm_one(&shared, &template).await {
                tracing::warn!(
                    template,
                    error = format!("{e:#}"),
                    "warming a pooled sandbox failed"
                );
                break;
            }
        }
        shared.refilling.lock().unwrap_or_else(|e| e.into_inner()).remove(&template);
    });
}

/// Starts one pooled sandbox.
async fn warm_one(shared: &Arc<Shared>, template: &str) -> anyhow::Result<()> {
    let now = now_ms();
    let blank = Record {
        sandbox_id: String::new(),
        template_id: template.to_owned(),
        alias: None,
        envd_access_token: Some(random_hex(32)),
        metadata: Default::default(),
        env_vars: Default::default(),
        auto_pause: false,
        auto_pause_memory: true,
        auto_resume: false,
        started_at_ms: now,
        end_at_ms: now,
        phase: Phase::Creating,
        isolation: None,
        cpu_count: None,
        memory_mb: None,
        network: Default::default(),
        volume_mounts: Vec::new(),
        startup: None,
        runtime: Default::default(),
        checkpoint: None,
    };
    let slot = shared.insert_new(&blank)?;
    slot.lock().pooled = true;
    let _ops = slot.ops.lock().await;
    if let Err(e) = lifecycle::launch(shared, &slot).await {
        discard(shared, &slot).await;
        return Err(e).context("starting a pooled sandbox");
    }
    tracing::debug!(sandbox = %slot.id, template, "pooled sandbox ready");
    Ok(())
}

/// Hands a taken pooled sandbox to its owner: its record gets the create request's
/// settings, and envd swaps the pool token for the owner's.
pub(crate) async fn hand_out(
    shared: &Arc<Shared>,
    slot: &Slot,
    request: &Record,
) -> anyhow::Result<()> {
    let pool_token = {
        let mut inner = slot.lock();
        let pool_token = inner.record.envd_access_token.take();
        inner.record = Record {
            sandbox_id: inner.record.sandbox_id.clone(),
            isolation: inner.record.isolation,
            ..request.clone()
        };
        pool_token
    };
    // The pool started it with no egress rules of its owner's: those are loaded before
    // envd (and so anything of the owner's) runs in it.
    if request.network.egress != Default::default()
        && let Err(e) = lifecycle::load_egress(slot, &request.network.egress).await
    {
        lifecycle::stop(slot).await;
        return Err(e.context("loading the owner's egress rules"));
    }
    // No record is written until the owner gets the sandbox (`created` saves it): a
    // daemon that dies before then leaves a directory without one, which its next start
    // removes, as for any pooled sandbox.
    lifecycle::activate(shared, slot, pool_token.as_deref()).await
}

/// Kills, in the background, the pooled sandboxes beyond their template's target (an
/// auto pool whose demand passed), the newest first; one trim at a time.
pub(crate) fn trim(shared: &Arc<Shared>) {
    if shared.config.pool != PoolSize::Auto
        || shared.demand.trimming.swap(true, std::sync::atomic::Ordering::SeqCst)
    {
        return;
    }
    let shared = shared.clone();
    tokio::spawn(async move {
        trim_now(&shared).await;
        shared.demand.trimming.store(false, std::sync::atomic::Ordering::SeqCst);
    });
}

async fn trim_now(shared: &Arc<Shared>) {
    let mut by_template: HashMap<String, Vec<Arc<Slot>>> = HashMap::new();
    for slot in shared.slots() {
        let template = {
            let inner = slot.lock();
            if !inner.pooled || inner.gone || inner.envd.is_none() {
                continue;
            }
            inner.record.template_id.clone()
        };
        by_template.entry(template).or_default().push(slot);
    }
    for (template, mut slots) in by_template {
        let keep = target(shared, &template);
        if slots.len() <= keep {
            continue;
        }
        slots.sort_by_key(|slot| slot.record().started_at_ms);
        for slot in slots.into_iter().skip(keep) {
            // Taken meanwhile by a create: it is that create's now.
            let still_pooled = {
                let mut inner = slot.lock();
                std::mem::replace(&mut inner.pooled, false)
            };
            if still_pooled {
                let _ops = slot.ops.lock().await;
                discard(shared, &slot).await;
            }
        }
    }
}

/// Kills a pooled sandbox that will not be handed out (failed start, or shutdown).
pub(crate) async fn discard(shared: &Arc<Shared>, slot: &Slot) {
    if let Err(e) = lifecycle::kill(shared, slot).await {
        tracing::warn!(sandbox = %slot.id, error = format!("{e:#}"), "removing a pooled sandbox");
    }
}
