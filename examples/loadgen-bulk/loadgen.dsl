# // Seed 002's bulk load (loadgen.yml beside this file) in INFINI Loadgen's DSL.
# // From this directory: esbench load -run loadgen.dsl -c 4 -d 60 --compress
# // The variables and env come from ./loadgen.yml, as Loadgen reads it before the DSL;
# // its requests are replaced by the one below.
# runner: {default_endpoint: "http://127.0.0.1:9200"}

POST /_bulk
{ "create" : { "_index" : "test-$[[suffix]]","_id" : "$[[uuid]]" } }
{ "id" : "$[[uuid]]","routing_no" : "$[[routing_no]]","batch_number" : "$[[batch_no]]", "message" : "$[[message]]", "random_no" : "$[[suffix]]","ip" : "$[[ip]]","now_local" : "$[[now_local]]","now_unix" : "$[[now_unix]]" }
# request: {
#   runtime_variables: {batch_no: "id"},
#   runtime_body_line_variables: {routing_no: "uuid"},
#   body_repeat_times: 5000,
#   basic_auth: {username: "$[[env.ES_USERNAME]]", password: "$[[env.ES_PASSWORD]]"},
# }
