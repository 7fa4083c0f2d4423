// One person's seat: fetch this seat's view with the link's key, click legal actions,
// poll while someone else decides. Polling stops when the game is over or stopped, and
// on any refusal (a wrong key, an expired game): the page then says why.
//
// Each action names the version of the view it was chosen in ({action, version}). The
// server refuses (409) an action chosen at another version, so a request lost on a
// flaky network can be sent again as it was: if the first copy arrived, the second is
// refused instead of becoming a move on a decision this person never saw. After a 409
// the page reloads the view and lets the person choose again; it never retries blindly.
"use strict";

const parts = location.pathname.split("/");
const GAME = parts[2];
const SEAT = parts[3];
const KEY = new URLSearchParams(location.hash.slice(1)).get("key") || "";
const API = "/api/games/" + GAME + "/seats/" + SEAT;
const SENDS = 3; // tries of one action when the network fails (same body each time)
let version = -1;
let busy = false;
let stopped = false;
let lastData = null;
let lastError = "";

function showError(text) {
  // The banner stays at the top of the window (sticky) and the same words appear above
  // the action buttons, where the person just clicked.
  lastError = text || "";
  const banner = document.getElementById("error");
  banner.textContent = lastError;
  banner.hidden = !lastError;
  document.querySelectorAll(".action-error").forEach((e) => e.remove());
  const actions = document.querySelector(".actions h3");
  if (lastError && actions) {
    const p = document.createElement("p");
    p.className = "error action-error";
    p.textContent = lastError;
    actions.after(p);
  }
}

function stop(text) {
  // No more polling; if the table never loaded, the message takes its place.
  stopped = true;
  document.body.dataset.stopped = "1";
  const loading = document.getElementById("loading");
  if (loading) loading.textContent = text;
  showError(text);
}

function show(data) {
  version = data.version;
  lastData = data;
  document.getElementById("who").textContent = "You are player " + data.player + " \u2014 teammates: " + data.teammates;
  document.body.dataset.version = data.version;
  document.body.dataset.over = data.over ? "1" : "0";
  renderTable(document.getElementById("table"), data, { onAction: act, error: lastError });
  if (data.ended) stop("The game was stopped: " + data.ended);
  if (data.over || data.ended) {
    stopped = true;
    document.body.dataset.stopped = "1";
    const a = document.createElement("a");
    a.href = location.pathname + "/replay" + location.hash;
    a.id = "watch-replay";
    a.className = "replay-link";
    a.textContent = "Watch this game again, step by step, from any seat";
    document.querySelector(".actions").appendChild(a);
  }
}

async function load() {
  const r = await fetch(API, { headers: { "X-Seat-Key": KEY } });
  const data = await r.json().catch(() => ({ error: "the server answered " + r.status }));
  if (!r.ok) { stop(data.error); return null; }
  return data;
}

async function send(body) {
  // POST the action; on a network failure send the very same body again (safe: it
  // names its version). Returns the response, or throws after the last try.
  for (let i = 1; ; i++) {
    try {
      return await fetch(API + "/actions", {
        method: "POST",
        headers: { "X-Seat-Key": KEY, "Content-Type": "application/json" },
        body: body,
      });
    } catch (err) {
      if (i >= SENDS) throw err;
      await new Promise((done) => setTimeout(done, 300 * i));
    }
  }
}

async function act(action) {
  if (busy) return;
  busy = true;
  document.body.dataset.busy = "1"; // tests wait for "0": the answer is shown
  document.querySelectorAll("button.action").forEach((b) => (b.disabled = true));
  try {
    let r;
    try {
      r = await send(JSON.stringify({ action: action, version: version }));
    } catch (err) {
      showError("Your action could not reach the server (network trouble); the table is shown as it was. Try again.");
      if (lastData) show(lastData);
      return;
    }
    const data = await r.json().catch(() => ({ error: "the server answered " + r.status }));
    if (!r.ok) {
      if (r.status >= 500 || r.status === 410 || r.status === 403) { stop(data.error); return; }
      // 409 (the table moved on, or the action is not legal now) and 400: show why,
      // then the table as it is now, and let the person choose again.
      showError("Not played: " + data.error);
      const again = await load();
      if (again) show(again);
      return;
    }
    showError("");
    show(data);
  } finally {
    busy = false;
    document.body.dataset.busy = "0";
  }
}

async function poll() {
  if (stopped) return; // a poll queued before the end or a refusal
  if (!busy) {
    const data = await load().catch(() => null);
    if (data && data.version !== version) show(data);
  }
  if (!stopped) setTimeout(poll, 1000);
}

poll();
