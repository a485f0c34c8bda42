-- Counts response statuses per thread and prints them, with the request
-- rate and p50/p99 latency, as one machine-readable line at the end.
local threads = {}
function setup(thread) table.insert(threads, thread) end
statuses = {}
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end
function done(summary, latency, requests)
  local counts = {}
  for _, t in ipairs(threads) do
    local s = t:get("statuses")
    for code, n in pairs(s) do counts[code] = (counts[code] or 0) + n end
  end
  local parts = {}
  for code, n in pairs(counts) do table.insert(parts, code .. "=" .. n) end
  table.sort(parts)
  local seconds = summary.duration / 1e6
  io.write(string.format("RESULT rps=%.0f p50_ms=%.2f p99_ms=%.2f requests=%d errors=%d statuses=%s\n",
    summary.requests / seconds, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.requests, summary.errors.connect + summary.errors.read + summary.errors.write
      + summary.errors.status + summary.errors.timeout, table.concat(parts, ",")))
end
