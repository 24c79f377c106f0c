//! The warm pool (`[sandboxd] pool = N`): per template, N sandboxes are started ahead of
//! demand, with envd running and healthy but not yet initialized. A create that asks for
//! nothing a pooled sandbox lacks (the template's default limits) takes one, initializes
//! it with its own env vars and access token, and a refill starts in the background.
//!
//! A pooled sandbox is never reused: it is handed out once or killed. Until it is handed
//! out it has no record on disk (a daemon that dies leaves only a directory without a
//! record, which the next start removes) and is invisible to the API. Its envd holds a
//! random pool token, so nothing can reach it before its owner does.

use std::sync::Arc;

use anyhow::Context;

use super::Shared;
use super::lifecycle;
use super::registry::{Phase, Record, Slot, now_ms, random_hex};

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

/// Takes a ready pooled sandbox of `template` out of the pool, if there is one.
pub(crate) fn take(shared: &Arc<Shared>, template: &str) -> Option<Arc<Slot>> {
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
    if shared.config.pool == 0 {
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
        while !shared.stopping() && pooled(&shared, &template) < shared.config.pool {
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

/// Kills a pooled sandbox that will not be handed out (failed start, or shutdown).
pub(crate) async fn discard(shared: &Arc<Shared>, slot: &Slot) {
    if let Err(e) = lifecycle::kill(shared, slot).await {
        tracing::warn!(sandbox = %slot.id, error = format!("{e:#}"), "removing a pooled sandbox");
    }
}
