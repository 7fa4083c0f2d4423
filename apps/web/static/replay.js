// A replay: step through a recorded game from any player's view or everybody's.
"use strict";

// Two sources: /replay/NAME (a recorded file) or /play/GAME/SEAT/replay (the seat's own
// finished game, opened with the seat's key).
const PARTS = location.pathname.split("/");
const OWN_GAME = PARTS[1] === "play";
const KEY = new URLSearchParams(location.hash.slice(1)).get("key") || "";
const SOURCE = OWN_GAME
  ? "/api/games/" + PARTS[2] + "/seats/" + PARTS[3] + "/replay"
  : "/api/replays/" + encodeURIComponent(decodeURIComponent(PARTS[2]));
const slider = document.getElementById("step");
const viewer = document.getElementById("viewer");
let steps = 0;

async function show(step) {
  const q = "?step=" + step + "&viewer=" + encodeURIComponent(viewer.value);
  const r = await fetch(SOURCE + q, { headers: OWN_GAME ? { "X-Seat-Key": KEY } : {} });
  const data = await r.json().catch(() => ({ error: "the server answered " + r.status }));
  if (!r.ok) {
    const banner = document.getElementById("error");
    banner.textContent = data.error;
    banner.hidden = false;
    const loading = document.getElementById("loading");
    if (loading) loading.textContent = data.error;
    return;
  }
  steps = data.steps;
  slider.max = steps;
  slider.value = step;
  document.getElementById("step-label").textContent = "step " + step + " / " + steps;
  if (viewer.options.length === 1) {
    for (let p = 0; p < data.num_players; p++) {
      const o = document.createElement("option");
      o.value = p; o.textContent = "player " + p;
      viewer.appendChild(o);
    }
  }
  document.body.dataset.step = step;
  renderTable(document.getElementById("table"), data, {});
}

const current = () => Number(slider.value);
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(Math.max(0, current() - 1));
document.getElementById("next").onclick = () => show(Math.min(steps, current() + 1));
document.getElementById("last").onclick = () => show(steps);
slider.oninput = () => show(current());
viewer.onchange = () => show(current());
show(0);
