# Redis from Debian's redis-server package (what scripts/redis.sh runs) for places where no
# image registry answers; scripts/compose.sh builds it and sets REDIS_IMAGE. Like the official
# image: no persistence, reachable from the compose network (protected mode off).
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
USER redis
CMD ["redis-server", "--protected-mode", "no", "--save", "", "--appendonly", "no", "--dir", "/tmp"]
