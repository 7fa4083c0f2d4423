// One person's seat: fetch this seat's view with the link's key, click legal actions,
// poll while someone else decides. Polling stops when the game is over or stopped, and
// on any refusal (a wrong key, an expired game): the page then says why.
"use strict";

const parts = location.pathname.split("/");
const GAME = parts[2];
const SEAT = parts[3];
const KEY = new URLSearchParams(location.hash.slice(1)).get("key") || "";
const API = "/api/games/" + GAME + "/seats/" + SEAT;
let version = -1;
let busy = false;
let stopped = false;

function showError(text) {
  document.getElementById("error").textContent = text || "";
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
  document.getElementById("who").textContent = "You are player " + data.player + " \u2014 teammates: " + data.teammates;
  document.body.dataset.version = data.version;
  document.body.dataset.over = data.over ? "1" : "0";
  renderTable(document.getElementById("table"), data, { onAction: act });
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

async function act(action) {
  if (busy) return;
  busy = true;
  document.querySelectorAll("button.action").forEach((b) => (b.disabled = true));
  try {
    const r = await fetch(API + "/actions", {
      method: "POST",
      headers: { "X-Seat-Key": KEY, "Content-Type": "application/json" },
      body: JSON.stringify({ action: action }),
    });
    const data = await r.json().catch(() => ({ error: "the server answered " + r.status }));
    if (!r.ok) {
      showError(data.error);
      if (r.status >= 500 || r.status === 410 || r.status === 403) { stop(data.error); return; }
      const again = await load();
      if (again) show(again);
      return;
    }
    showError("");
    show(data);
  } finally {
    busy = false;
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
