# chatbot-bridge image. Build: docker build -t chatbot-bridge .
# docs/deploy.md has the run commands; test/deploy/dockerfile.test.ts checks
# this file's contract (stages, Node major, build, user, start command, no dev dependencies,
# no secrets), and test/deploy/build.test.ts runs what it builds the way it runs it.
#
# Base: node:22-slim, the oldest Node LTS still supported (until 2027-04-30; Node 20's
# support ended in April 2026). The tests and CI run on Node 20 (package.json's engines
# minimum), so the code uses nothing that Node 20 and 22 do not both have. The contract test
# holds every FROM below to the LTS its table names, and fails once that LTS is past its end
# of support. Slim: Debian without build tools, which nothing here needs: classic-level ships
# prebuilt binaries (Node-API, for any Node) in its package.

# --- Stage 1: compile the TypeScript (dev dependencies, thrown away after) ----------------
FROM node:22-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: package.json's allowScripts already denies the install scripts of
# classic-level and esbuild (both ship prebuilt binaries in their packages); an npm that does
# not read allowScripts would run them, so the image says it outright.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY adapters ./adapters
# tsc to dist/: src/main.ts becomes dist/src/main.js, its `.ts` imports rewritten to `.js`.
RUN npm run build

# --- Stage 2: production dependencies only ---------------------------------------------
FROM node:22-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=dev: no TypeScript, tsx, vitest, biome or type packages in the image.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# --- Stage 3: the runtime ----------------------------------------------------------------
FROM node:22-slim AS runtime
# HOST=0.0.0.0: whatever the bot's own default, inside a container only all interfaces can be
# reached through a published port. Keep it off the public interface on the host instead:
# publish on the host's loopback (-p 127.0.0.1:3000:3000) and let a reverse proxy expose only
# the webhook paths (docs/deploy.md, "Webhooks behind a reverse proxy").
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app
# Code and dependencies stay owned by root: the bot (user `node`) can read them, not change
# them. Nothing is written outside DATA_DIR, so `docker run --read-only` works.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# The embedded store (when STORE_URL is unset) writes here; a volume keeps it across
# containers. Created before VOLUME so a new volume starts out owned by `node`.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME /app/data
# The official image's unprivileged user (uid 1000).
USER node
EXPOSE 3000
# slim has no curl or wget: node asks /healthz itself. 200 while the process answers at all,
# through a Redis or platform outage too; /readyz says whether it takes work (docs/operations.md, "Health").
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/healthz`, { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `node` directly, not `npm start`: npm does not pass SIGTERM on to its child, and the bot
# drains on SIGTERM (running answers get SHUTDOWN_GRACE_MS to finish). The compiled form of
# package.json's "start" entry (`tsx src/main.ts`): plain JavaScript, no compile at start and
# no cache folder to write. Exec form, so node is PID 1 and receives the signal itself.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
