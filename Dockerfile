# chatbot-bridge image. Build: docker build -t chatbot-bridge .
# The README's "Deploy" section has the run commands; test/deploy/dockerfile.test.ts checks
# this file's contract (stages, user, start command, no dev dependencies, no secrets).
#
# Base: node:24-slim. Node 24 is an LTS line (Active LTS from October 2025, security fixes
# until April 2028); Node 22 is already in maintenance and ends in April 2027. DESIGN.md: the
# tests run on Node 20, the image uses a current LTS. The dependencies' engines ranges all
# include 24 (undici 7 wants >=20.18.1, Bolt >=20). Slim: Debian without build tools, which
# nothing here needs: classic-level and esbuild ship prebuilt binaries in their packages.

# --- Stage 1: production dependencies only ---------------------------------------------
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=dev: no vitest, biome or typescript in the image. tsx stays: it is a production
# dependency because the bot runs its TypeScript directly (no compile step).
# --ignore-scripts: package.json's allowScripts already denies the install scripts of
# classic-level and esbuild (both ship prebuilt binaries in their packages); an npm that does
# not read allowScripts would run them, so the image says it outright.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# --- Stage 2: the runtime ----------------------------------------------------------------
FROM node:24-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app
# Code and dependencies stay owned by root: the bot (user `node`) can read them, not change them.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY src ./src
COPY adapters ./adapters
# The embedded store (when STORE_URL is unset) writes here; a volume keeps it across
# containers. Created before VOLUME so a new volume starts out owned by `node`.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME /app/data
# The official image's unprivileged user (uid 1000).
USER node
EXPOSE 3000
# slim has no curl or wget: node asks /healthz itself. 200 while serving; 503 when the store
# is unreachable, a channel is down, or the process is draining after SIGTERM.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/healthz`, { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `node` directly, not `npm start`: npm does not pass SIGTERM on to its child, and the bot
# drains on SIGTERM (running answers get SHUTDOWN_GRACE_MS to finish). `--import tsx` runs
# the same entry file as package.json's "start" script (`tsx src/main.ts`) in this one
# process, without the extra child process the tsx CLI starts. Exec form, so node is PID 1
# and receives the signal itself.
STOPSIGNAL SIGTERM
CMD ["node", "--import", "tsx", "src/main.ts"]
