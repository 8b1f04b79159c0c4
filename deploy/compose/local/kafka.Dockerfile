# A single-node Kafka (KRaft) image for places where no image registry answers: the broker jars
# scripts/kafka.sh fetches from Maven (.cache/kafka/libs) on a Java runtime from Debian packages.
# It takes the same KAFKA_* environment as the apache/kafka image docker-compose.yml uses by
# default, so compose runs either (scripts/compose.sh builds this one and sets KAFKA_IMAGE).
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN groupadd --system --gid 1000 kafka \
    && useradd --system --uid 1000 --gid 1000 --home-dir /var/lib/kafka --create-home kafka
COPY libs /opt/kafka/libs
COPY kafka-entrypoint.sh kafka-broker-api-versions.sh /opt/kafka/bin/
COPY log4j2.properties /opt/kafka/config/
USER kafka
ENTRYPOINT ["/opt/kafka/bin/kafka-entrypoint.sh"]
