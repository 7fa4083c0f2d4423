// Draws one seat's view of the table (or the omniscient view of a replay step).
// Everything shown comes from the server's data for this seat; text goes in with
// textContent only.
"use strict";

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function pips(count, total, cls) {
  const box = el("span", "pips " + cls);
  for (let i = 0; i < total; i++) box.appendChild(el("span", i < count ? "pip on" : "pip"));
  return box;
}

function fateToken(value, extra) {
  return el("span", "fate" + (extra ? " " + extra : ""), value === null ? "?" : value);
}

function withRanges(box, text) {
  // A range of values ("1-3", "5-7") never breaks across lines.
  const parts = String(text).split(/(\d+-\d+)/);
  parts.forEach((part, i) => {
    if (i % 2) box.appendChild(el("span", "range", part));
    else if (part) box.appendChild(document.createTextNode(part));
  });
  return box;
}

function fadesText(moons) {
  return moons === null ? "fades by its text" : "fades at " + moons + (moons === 1 ? " hour" : " hours");
}

function cardBox(slot, warning) {
  const box = el("div", "card");
  box.dataset.slot = slot.slot;
  if (!slot.card) {
    box.classList.add("empty");
    box.appendChild(el("div", "card-name", "slot " + slot.slot + ": empty"));
    return box;
  }
  const c = slot.card;
  box.appendChild(el("div", "slot-no", "slot " + slot.slot));
  box.appendChild(el("div", "card-name", c.name));
  box.appendChild(withRanges(el("div", "card-cond"), c.condition));
  const time = el("div", "card-time");
  const moons = slot.moons === null ? 0 : slot.moons;
  time.appendChild(el("span", "label", "hours " + slot.hours));
  time.appendChild(pips(slot.hours, Math.max(moons, slot.hours), "hours"));
  time.appendChild(el("span", "moons", fadesText(slot.moons)));
  box.appendChild(time);
  if (warning) {
    box.classList.add("fading");
    box.appendChild(el("div", "fade-warning", warning.doom
      ? "Fades this turn: +" + warning.doom + " doom unless the group predicts right"
      : "Fades this turn (no doom)"));
  }
  const fates = el("div", "card-fates");
  slot.fates.forEach((v, i) => {
    const f = fateToken(v);
    f.title = v + " counts " + slot.fate_hours[i] + " hour" + (slot.fate_hours[i] === 1 ? "" : "s");
    fates.appendChild(f);
    fates.appendChild(el("sub", "fate-hours", slot.fate_hours[i] + "h"));
  });
  box.appendChild(fates);
  for (const p of slot.attached) box.appendChild(el("div", "attached", "+ " + p.title + ": " + p.summary));
  box.title = c.title + " (fades into: " + c.power + ")";
  return box;
}

function numberLine(values) {
  const line = el("span", "number-line");
  for (let v = 1; v <= 7; v++) line.appendChild(el("span", values.includes(v) ? "nl on" : "nl off", v));
  return line;
}

function trackText(name, value, end) {
  // "Doom 5/7"; past the end of the track "Doom 7/7 (8 counted)", never "8/7".
  return value <= end ? name + " " + value + "/" + end : name + " " + end + "/" + end + " (" + value + " counted)";
}

function readingPanel(data) {
  // What this turn's plays tell about the active seat's hidden fate, read literally
  // (the server's words), and the AI group's model's reading of that same fate.
  const box = el("div", "reading");
  if (data.reading) {
    box.appendChild(el("h3", null, "What this turn's plays tell"));
    box.appendChild(el("p", "reading-text", data.reading.text));
  }
  if (data.posterior) {
    const whose = data.reading ? "player " + data.reading.player + "'s hidden fate" : "the hidden fate";
    const post = el("div", "posterior");
    post.appendChild(el("h3", null, "What the group concludes about " + whose));
    const from = data.reading ? "from " + data.reading.plays.join("; ") + ", " : "";
    post.appendChild(el("p", "muted reading-from", "The AI teammates' model reads it " + from +
      "with every public step of the game so far, as your teammates would:"));
    data.posterior.forEach((p, i) => {
      const bar = el("div", "bar-row");
      bar.appendChild(el("span", "bar-label", i + 1));
      const b = el("span", "bar");
      b.style.width = Math.round(p * 160) + "px";
      bar.appendChild(b);
      bar.appendChild(el("span", "bar-value", Math.round(p * 100) + "%"));
      post.appendChild(bar);
    });
    box.appendChild(post);
  }
  return box;
}

function renderTable(root, data, opts) {
  opts = opts || {};
  root.textContent = "";
  const top = el("section", "scoreboard");
  const status = el("div", "status");
  if (data.over) {
    const turns = data.turn + (data.turn === 1 ? " turn" : " turns");
    const reason = data.end_reason ? " Last turn: " + data.end_reason + "." : "";
    status.appendChild(el("strong", data.won ? "won" : "lost", "Game over after " + turns + ". " + data.end_words + reason));
  } else if (data.ended) {
    status.appendChild(el("strong", "lost", "The game was stopped: " + data.ended));
  } else {
    const me = data.player;
    const who = data.active_player === me ? "your turn" : "player " + data.active_player + "'s turn";
    const decider = data.decider === me ? "your decision" : "player " + data.decider + " decides";
    status.textContent = "Turn " + data.turn + " \u2014 " + who + " (seat " + data.active_seat + "), now: " +
      data.phase_words + "; " + decider + "; leader: player " + data.leader;
  }
  top.appendChild(status);
  const score = el("div", "meter");
  score.appendChild(el("span", "label", trackText("Score", data.score, 7)));
  score.appendChild(pips(data.score, 7, "score"));
  score.appendChild(el("span", "label", trackText("Doom", data.doom, 7)));
  score.appendChild(pips(data.doom, 7, "doom"));
  score.appendChild(el("span", "muted", data.difficulty + ", " + data.num_players + " players, " + data.card_sets.join("+") + ", " + data.group_decision));
  top.appendChild(score);
  if (!data.over) {
    const hint = document.getElementById("how-to-play") ? " The rules in short: \u201cHow to play\u201d above." : "";
    top.appendChild(el("div", "goal", "Goal: " + data.goal + "." + hint));
  }
  root.appendChild(top);

  const board = el("section", "board");
  const deck = el("div", "card deck");
  deck.appendChild(el("div", "slot-no", "deck: " + data.deck.size + " cards"));
  if (data.deck.top) {
    deck.appendChild(el("div", "card-name", data.deck.top.name));
    deck.appendChild(withRanges(el("div", "card-cond"), data.deck.top.condition));
    deck.appendChild(el("div", "moons", fadesText(data.deck.top.moons)));
  } else deck.appendChild(el("div", "card-name", "empty"));
  if (data.deck_order) deck.appendChild(el("div", "moons", "order: " + data.deck_order.join(", ")));
  board.appendChild(deck);
  const hours = el("div", "card hours-card");
  hours.appendChild(el("div", "slot-no", "always in play"));
  hours.appendChild(el("div", "card-name", "The Hours"));
  hours.appendChild(el("div", "card-cond", "only when no fate fits any card: the fate slides to the leftmost card"));
  board.appendChild(hours);
  const fading = data.fading || [];
  for (const slot of data.slots) board.appendChild(cardBox(slot, fading.find((w) => w.slot === slot.slot)));
  root.appendChild(board);
  root.appendChild(el("p", "muted hours-text", "A card fades at the end of a turn once the hours of the fates in front of it reach the number it fades at; " + data.hours_text + "."));

  const mid = el("section", "mid");
  const seats = el("div", "panel seats");
  seats.appendChild(el("h3", null, "Seats and number lines"));
  for (const s of data.seats) {
    const row = el("div", "seat" + (s.mine ? " mine" : "") + (s.seat === data.active_seat && !data.over ? " active" : ""));
    row.appendChild(el("span", "seat-name", "seat " + s.seat + " \u00B7 player " + s.player + (s.mine ? " (you)" : "")));
    const held = el("span", "held");
    if (s.fates) for (const v of s.fates) held.appendChild(fateToken(v, "own"));
    else for (let i = 0; i < s.holding; i++) held.appendChild(fateToken(null, "hidden"));
    if (!s.holding) held.appendChild(el("span", "muted", "no fate"));
    row.appendChild(held);
    row.appendChild(numberLine(s.line));
    seats.appendChild(row);
  }
  const unseen = el("div", "unseen");
  unseen.appendChild(el("span", "label", (data.player === null ? "In the bag" : "Unseen copies") + " (value: how many):"));
  data.unseen.forEach((n, i) => unseen.appendChild(el("span", "count", (i + 1) + ": " + n)));
  seats.appendChild(unseen);
  if (data.exiled.some((n) => n > 0)) {
    const ex = el("div", "unseen");
    ex.appendChild(el("span", "label", "Exiled:"));
    data.exiled.forEach((n, i) => { if (n) ex.appendChild(el("span", "count", (i + 1) + ": " + n)); });
    seats.appendChild(ex);
  }
  mid.appendChild(seats);

  const powers = el("div", "panel powers");
  powers.appendChild(el("h3", null, "Faded powers"));
  if (!data.faded.length) powers.appendChild(el("p", "muted", "none yet"));
  for (const p of data.faded) {
    const row = el("div", "power");
    if (p.card) row.appendChild(el("span", "power-card", p.card + ": "));
    row.appendChild(el("strong", null, p.id + " \u2014 " + p.title));
    row.appendChild(el("span", null, " " + p.summary));
    powers.appendChild(row);
  }
  if (data.reading || data.posterior) powers.appendChild(readingPanel(data));
  mid.appendChild(powers);
  root.appendChild(mid);

  const lower = el("section", "lower");
  const actions = el("div", "panel actions");
  const heading = data.over || data.ended ? "The end" : !opts.onAction ? "Legal actions" :
    data.legal.length ? "Your decision" : "Waiting";
  actions.appendChild(el("h3", null, heading));
  if (opts.error) actions.appendChild(el("p", "error action-error", opts.error));
  if (data.turn_events.length) actions.appendChild(el("p", "events", "This turn: " + data.turn_events.join("; ")));
  if (data.decision_help && data.legal.length) actions.appendChild(el("p", "explain", data.decision_help));
  if (!data.over) {
    for (const w of fading) actions.appendChild(el("p", "fade-note", "\u26A0 " + w.text + "."));
  }
  if (!data.legal.length) {
    actions.appendChild(el("p", "muted", data.over ? "The game is over." : data.ended ? "The game was stopped." : "Waiting for player " + data.decider + "..."));
  }
  const list = el("div", "action-list");
  if (data.legal.some((a) => a.preview)) list.classList.add("with-previews");
  for (const a of data.legal) {
    const b = el("button", "action");
    b.appendChild(el("span", "action-text", a.text));
    if (a.preview) b.appendChild(el("span", "preview", a.preview));
    const model = data.model_previews && data.model_previews[a.action];
    if (model) b.appendChild(el("span", "preview model", model));
    b.dataset.action = a.action;
    if (opts.onAction) b.addEventListener("click", () => opts.onAction(a.action));
    else b.disabled = true;
    list.appendChild(b);
  }
  actions.appendChild(list);
  lower.appendChild(actions);
  const log = el("div", "panel log");
  log.appendChild(el("h3", null, "Log"));
  const ol = el("ol", "log-list");
  for (const e of data.log.slice().reverse()) {
    const who = e.player === data.player ? "you" : "player " + e.player + (e.by === "ai" ? " (AI)" : "");
    const li = el("li", null, who + ": " + e.action + (e.events.length ? " \u2192 " + e.events.join("; ") : ""));
    if (e.note) li.appendChild(el("div", "note", e.note));
    if (e.turn_end && e.turn_end.length) li.appendChild(el("div", "turn-end", "end of turn " + e.turn + ": " + e.turn_end.join("; ")));
    li.value = e.index;
    ol.appendChild(li);
  }
  log.appendChild(ol);
  lower.appendChild(log);
  root.appendChild(lower);
}
