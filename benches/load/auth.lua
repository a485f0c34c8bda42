-- GET with the API key from the environment (RENTAL_KEY); counts statuses.
wrk.headers["Authorization"] = "Bearer " .. os.getenv("RENTAL_KEY")
dofile(os.getenv("LOAD_DIR") .. "/report.lua")
