-- POST /api/v1/quotes: a 7-night quote at sea-view.
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("RENTAL_KEY")
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"property":"sea-view","checkIn":"' .. os.getenv("QUOTE_IN") .. '","checkOut":"' .. os.getenv("QUOTE_OUT") .. '","guests":3}'
dofile(os.getenv("LOAD_DIR") .. "/report.lua")
