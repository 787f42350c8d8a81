# calq as a container: build with the dev dependencies, run with only the
# production ones and dist/. Nothing secret is baked in: calq.yaml, feed
# header secrets, cursor keys and TLS files come from the environment and
# mounted volumes (a Kubernetes ConfigMap and Secret) at run time.
#
#   docker build -t calq .
#   docker run -p 50051:50051 -v "$PWD/data:/data:ro" calq serve --data /data --host 0.0.0.0 --allow-plaintext-non-loopback
#
# NODE_IMAGE lets a build without Docker Hub use a mirror of the same image.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY gen ./gen
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/bin/calq.mjs ./bin/calq.mjs
COPY --from=build /src/dist ./dist
# The calendar registry's folder (the embedded registry, or a replica's local copy of its group's rows):
# writable, and apart from /data, which is often mounted read-only. Mount a volume there to keep it.
ENV CALQ_REGISTRY_FOLDER=/var/lib/calq/registry
RUN mkdir -p /var/lib/calq/registry && chown node:node /var/lib/calq/registry
VOLUME /var/lib/calq/registry
# The image's own unprivileged user (uid 1000 in the node images).
USER node
EXPOSE 50051
ENTRYPOINT ["node", "/app/bin/calq.mjs"]
CMD ["serve", "--data", "/data", "--host", "0.0.0.0", "--allow-plaintext-non-loopback"]
