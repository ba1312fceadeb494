#!/usr/bin/env python3
"""Golden values for train-mcp's GRPO loss family, from a PyTorch re-implementation of TRL.

`trl_loss` below restates, line for line, the loss block of Hugging Face TRL's
`GRPOTrainer._compute_loss` (trl/trainer/grpo_trainer.py, 0.2x series): token or sequence
(GSPO) importance ratio, two-sided clip with epsilon_low / epsilon_high, optional `delta`
upper clamp, truncated importance sampling (TIS) against the sampler's log-probs, the k3 KL
term, and the four loss_type aggregations (grpo / bnpo / dr_grpo divided by the number of
gradient-accumulation micro-batches; dapo divided by `num_items_in_batch`, the completion
tokens of the whole step). `trl_advantages` restates `_generate_and_score_completions`'s
advantage block (scale_rewards "group" | "batch" | "none", sample std, eps 1e-4), plus ART's
population-std variant.

Run with Debian's python3-torch:  /usr/bin/python3 test/golden-rl/make_goldens.py
It rewrites test/golden-rl/goldens.json (float64 math, fixed seed); the TS test
test/rl/grpo-golden.test.ts compares loss and d loss / d logp within 1e-5.
"""
import itertools
import json
import os

import torch

torch.set_default_dtype(torch.float64)


# ---------------------------------------------------------------- TRL's loss block
def trl_loss(per_token_logps, old, ref, mask, advantages, sampler, truncated, cfg):
    """Returns (loss, metrics). Mirrors TRL `_compute_loss` after the forward pass."""
    completion_mask = mask
    if cfg["mask_truncated_completions"] and truncated is not None:
        # TRL zeroes the mask of completions without EOS (done in _generate_and_score_completions)
        completion_mask = completion_mask * (~truncated).unsqueeze(1).to(mask.dtype)

    beta = cfg["beta"]
    if beta != 0.0:
        per_token_kl = torch.exp(ref - per_token_logps) - (ref - per_token_logps) - 1

    old_per_token_logps = per_token_logps.detach() if old is None else old
    log_ratio = per_token_logps - old_per_token_logps
    if cfg["importance_sampling_level"] == "token":
        log_importance_weights = log_ratio
    elif cfg["importance_sampling_level"] == "sequence":
        log_importance_weights = (log_ratio * completion_mask).sum(-1) / completion_mask.sum(-1).clamp(min=1.0)
        log_importance_weights = log_importance_weights.unsqueeze(-1)
    else:
        raise ValueError(cfg["importance_sampling_level"])

    eps_low = cfg["epsilon"]
    eps_high = cfg["epsilon_high"] if cfg["epsilon_high"] is not None else cfg["epsilon"]
    coef_1 = torch.exp(log_importance_weights)
    coef_2 = torch.clamp(coef_1, 1 - eps_low, 1 + eps_high)
    if cfg["delta"] is not None:
        coef_1 = torch.clamp(coef_1, max=cfg["delta"])

    per_token_loss1 = coef_1 * advantages.unsqueeze(1)
    per_token_loss2 = coef_2 * advantages.unsqueeze(1)
    per_token_loss = -torch.min(per_token_loss1, per_token_loss2)

    if cfg["tis_cap"] is not None and sampler is not None:
        # TRL: importance_sampling_ratio = clamp(exp(old - sampling), max=cap), computed without grad
        importance_sampling_ratio = torch.clamp(torch.exp(old_per_token_logps - sampler), max=cfg["tis_cap"])
        per_token_loss = per_token_loss * importance_sampling_ratio

    if beta != 0.0:
        per_token_loss = per_token_loss + beta * per_token_kl

    gas = cfg["num_micro_batches"]
    lt = cfg["loss_type"]
    if lt == "grpo":
        loss = ((per_token_loss * completion_mask).sum(-1) / completion_mask.sum(-1).clamp(min=1.0)).mean()
        loss = loss / gas
    elif lt == "bnpo":
        loss = (per_token_loss * completion_mask).sum() / completion_mask.sum().clamp(min=1.0)
        loss = loss / gas
    elif lt == "dr_grpo":
        loss = (per_token_loss * completion_mask).sum() / (per_token_loss.size(0) * cfg["max_completion_length"])
        loss = loss / gas
    elif lt == "dapo":
        normalizer = cfg["total_step_tokens"]  # num_items_in_batch / num_processes, one process
        loss = (per_token_loss * completion_mask).sum() / normalizer
    else:
        raise ValueError(lt)

    # metrics, as TRL logs them
    with torch.no_grad():
        completion_token_count = completion_mask.sum().clamp(min=1.0)

        def masked_batch_mean(x):
            if x.shape[1] == 1:  # sequence level
                return x.mean()
            return (x * completion_mask).sum() / completion_token_count

        a = advantages.unsqueeze(1)
        is_low = ((coef_1 < 1 - eps_low) & (a < 0)).to(per_token_logps.dtype)
        is_high = ((coef_1 > 1 + eps_high) & (a > 0)).to(per_token_logps.dtype)
        is_region = ((is_low + is_high) > 0).to(per_token_logps.dtype)
        metrics = {
            "clip_low": masked_batch_mean(is_low).item(),
            "clip_high": masked_batch_mean(is_high).item(),
            "clip_region": masked_batch_mean(is_region).item(),
            "ratio_mean": masked_batch_mean(coef_1).item(),
        }
        if beta != 0.0:
            metrics["kl"] = masked_batch_mean(per_token_kl).item()
    return loss, metrics


# ---------------------------------------------------------------- TRL's advantage block
def trl_advantages(groups, scale_rewards, std_kind="sample", eps=1e-4):
    """groups: list of equal-size reward lists. TRL: sample std (torch.std), eps 1e-4."""
    rewards = torch.tensor([r for g in groups for r in g])
    G = len(groups[0])
    unbiased = std_kind == "sample"
    mean_grouped = rewards.view(-1, G).mean(dim=1).repeat_interleave(G)
    if scale_rewards in ("group", "none"):
        std = rewards.view(-1, G).std(dim=1, unbiased=unbiased).repeat_interleave(G)
    else:
        std = rewards.std(unbiased=unbiased).expand_as(rewards)
    adv = rewards - mean_grouped
    if scale_rewards != "none":
        adv = adv / (std + eps)
    group_std = rewards.view(-1, G).std(dim=1, unbiased=unbiased)
    zero = torch.isclose(group_std, torch.zeros_like(group_std))
    return adv.tolist(), zero.tolist()


# ---------------------------------------------------------------- fixed random inputs
def make_inputs(seed, B, T, spread):
    g = torch.Generator().manual_seed(seed)
    logp = -torch.rand(B, T, generator=g) * 3.0 - 0.05  # log-probs in (-3.05, -0.05)
    # per-row drift so that sequence-level ratios land below 0.8, in (1.2, 1.28) and above 1.28
    row_shift = torch.tensor([0.35, -0.3, 0.22, 0.05, -0.25, 0.0][:B]).unsqueeze(1)
    old = logp - row_shift + torch.randn(B, T, generator=g) * spread  # enough drift to hit both clip sides
    ref = logp + torch.randn(B, T, generator=g) * 0.5
    sampler = old + torch.randn(B, T, generator=g) * 0.6  # another engine: exp(old - sampler) often > cap
    lengths = [T, T - 2, 3, T - 1, 1, 0][:B]  # ragged completions, one fully masked row
    mask = torch.zeros(B, T)
    for i, n in enumerate(lengths):
        mask[i, :n] = 1.0
    advantages = torch.tensor([1.3, -0.7, 0.4, -1.1, 0.9, 0.5][:B])
    truncated = torch.tensor([False, True, False, False, True, False][:B])
    return dict(logp=logp, old=old, ref=ref, sampler=sampler, mask=mask, advantages=advantages, truncated=truncated)


def case_list():
    cases = []
    for lt, level, beta, eps_high in itertools.product(
        ["grpo", "bnpo", "dr_grpo", "dapo"], ["token", "sequence"], [0.0, 0.04], [None, 0.28]
    ):
        cases.append(dict(loss_type=lt, importance_sampling_level=level, beta=beta, epsilon_high=eps_high))
    for lt, level in itertools.product(["grpo", "bnpo", "dr_grpo", "dapo"], ["token", "sequence"]):
        cases.append(dict(loss_type=lt, importance_sampling_level=level, beta=0.04, epsilon_high=0.28, tis_cap=2.0))
    for lt in ["grpo", "dapo"]:
        cases.append(dict(loss_type=lt, importance_sampling_level="token", beta=0.0, mask_truncated_completions=True))
        cases.append(dict(loss_type=lt, importance_sampling_level="token", beta=0.0, delta=1.2, epsilon_high=0.28))
        cases.append(dict(loss_type=lt, importance_sampling_level="token", beta=0.04, no_old=True))
    return cases


def main():
    B, T = 6, 7
    inputs = make_inputs(1234, B, T, spread=0.3)
    out_cases = []
    for c in case_list():
        cfg = dict(
            loss_type=c["loss_type"],
            importance_sampling_level=c["importance_sampling_level"],
            beta=c["beta"],
            epsilon=0.2,
            epsilon_high=c.get("epsilon_high"),
            delta=c.get("delta"),
            tis_cap=c.get("tis_cap"),
            mask_truncated_completions=c.get("mask_truncated_completions", False),
            max_completion_length=12,
            num_micro_batches=2,
            # dapo: this micro-batch's tokens plus 17 from the step's other micro-batch
            total_step_tokens=float(inputs["mask"].sum().item() + 17),
        )
        logp = inputs["logp"].clone().requires_grad_(True)
        loss, metrics = trl_loss(
            logp,
            None if c.get("no_old") else inputs["old"],
            inputs["ref"],
            inputs["mask"],
            inputs["advantages"],
            inputs["sampler"] if cfg["tis_cap"] is not None else None,
            inputs["truncated"],
            cfg,
        )
        loss.backward()
        name = "-".join(
            [cfg["loss_type"], cfg["importance_sampling_level"], "kl" if cfg["beta"] else "nokl",
             "cliphigh" if cfg["epsilon_high"] is not None else "sym"]
            + (["tis"] if cfg["tis_cap"] is not None else [])
            + (["masktrunc"] if cfg["mask_truncated_completions"] else [])
            + (["delta"] if cfg["delta"] is not None else [])
            + (["noold"] if c.get("no_old") else [])
        )
        out_cases.append(dict(name=name, cfg=cfg, no_old=bool(c.get("no_old")), loss=loss.item(),
                              grad=logp.grad.tolist(), metrics=metrics))

    adv_groups = [[1.0, 0.0, 0.5, 1.0], [0.2, 0.2, 0.2, 0.2], [3.0, -1.0, 2.0, 0.0]]
    adv_cases = []
    for scale, kind, eps in [("group", "sample", 1e-4), ("batch", "sample", 1e-4), ("none", "sample", 1e-4),
                             ("group", "population", 1e-6), ("batch", "population", 1e-6)]:
        adv, zero = trl_advantages(adv_groups, scale, kind, eps)
        adv_cases.append(dict(scale_rewards=scale, std_kind=kind, eps=eps, advantages=adv, zero_variance=zero))

    golden = dict(
        about="generated by test/golden-rl/make_goldens.py (PyTorch %s, float64); do not edit" % torch.__version__,
        inputs={k: (v.tolist() if k != "truncated" else [bool(x) for x in v.tolist()]) for k, v in inputs.items()},
        cases=out_cases,
        advantages=dict(groups=adv_groups, cases=adv_cases),
    )
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens.json")
    with open(path, "w") as f:
        json.dump(golden, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print("wrote %d loss cases, %d advantage cases to %s" % (len(out_cases), len(adv_cases), path))


if __name__ == "__main__":
    main()
