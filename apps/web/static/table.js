// One person's seat: fetch this seat's view with the link's key, click legal actions,
// poll while someone else decides.
"use strict";

const parts = location.pathname.split("/");
const GAME = parts[2];
const SEAT = parts[3];
const KEY = new URLSearchParams(location.hash.slice(1)).get("key") || "";
const API = "/api/games/" + GAME + "/seats/" + SEAT;
let version = -1;
let busy = false;

function showError(text) {
  document.getElementById("error").textContent = text || "";
}

function show(data) {
  version = data.version;
  document.getElementById("who").textContent = "You are player " + data.player + " \u2014 teammates: " + data.teammates;
  document.body.dataset.version = data.version;
  document.body.dataset.over = data.over ? "1" : "0";
  renderTable(document.getElementById("table"), data, { onAction: act });
  if (data.over) {
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
  const data = await r.json();
  if (!r.ok) { showError(data.error); return null; }
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
    const data = await r.json();
    if (!r.ok) { showError(data.error); const again = await load(); if (again) show(again); return; }
    showError("");
    show(data);
  } finally {
    busy = false;
  }
}

async function poll() {
  if (!busy) {
    const data = await load().catch(() => null);
    if (data && data.version !== version) show(data);
  }
  setTimeout(poll, 1000);
}

poll();
