"""Column roles read from an SDV metadata JSON file (both layouts)."""

import json

import pytest

from policycheck.core.errors import InvalidInput
from policycheck.release.load import build_release, load_manifest
from policycheck.release.metadata import read_sdv_metadata
from policycheck.release.model import SynthesizerInfo

COLUMNS = {
    "guest_id": {"sdtype": "id", "regex_format": "G_[0-9]{3}"},
    "guest_email": {"sdtype": "email", "pii": True},
    "has_rewards": {"sdtype": "boolean"},
    "room_type": {"sdtype": "categorical"},
    "room_rate": {"sdtype": "numerical", "computer_representation": "Float"},
    "checkin_date": {"sdtype": "datetime", "datetime_format": "%d %b %Y"},
}
DATA = (
    "guest_id,guest_email,has_rewards,room_type,room_rate,checkin_date\n"
    "G_001,a@x.org,True,BASIC,100.5,02 Jan 1970\n"
    "G_002,b@x.org,False,SUITE,250.0,01 Jan 1970\n"
)
ROLES = {
    "guest_id": "id",
    "guest_email": "ignore",
    "has_rewards": "categorical",
    "room_type": "categorical",
    "room_rate": "numeric",
    "checkin_date": "datetime",
}


def release_from(tmp_path, document):
    (tmp_path / "o.csv").write_text(DATA)
    (tmp_path / "metadata.json").write_text(json.dumps(document))
    return build_release(
        "r", tmp_path / "o.csv", [(tmp_path / "o.csv", "s", SynthesizerInfo())], metadata=tmp_path / "metadata.json"
    )


def test_single_table_layout_gives_roles(tmp_path):
    release = release_from(
        tmp_path, {"METADATA_SPEC_VERSION": "SINGLE_TABLE_V1", "primary_key": "guest_id", "columns": COLUMNS}
    )
    assert release.roles == ROLES
    assert release.original.frame["checkin_date"].tolist() == [1.0, 0.0]  # its datetime_format is used


def test_tables_layout_gives_roles(tmp_path):
    document = {
        "METADATA_SPEC_VERSION": "V1",
        "tables": {"guests": {"primary_key": "guest_id", "columns": COLUMNS}},
        "relationships": [],
    }
    assert release_from(tmp_path, document).roles == ROLES


def test_of_several_tables_the_one_with_the_data_columns_is_taken(tmp_path):
    document = {"tables": {"hotels": {"columns": {"hotel_id": {"sdtype": "id"}}}, "guests": {"columns": COLUMNS}}}
    assert release_from(tmp_path, document).roles == ROLES


def test_primary_key_is_an_id_whatever_its_sdtype(tmp_path):
    (tmp_path / "m.json").write_text(json.dumps({"primary_key": "email", "columns": {"email": {"sdtype": "email"}}}))
    assert read_sdv_metadata(tmp_path / "m.json")["email"].type == "id"


def test_metadata_column_not_in_the_data_is_refused(tmp_path):
    with pytest.raises(InvalidInput, match="metadata.json: column 'extra' declared in the metadata is not in the data"):
        release_from(tmp_path, {"columns": {**COLUMNS, "extra": {"sdtype": "numerical"}}})


def test_metadata_that_is_not_json_is_one_line(tmp_path):
    (tmp_path / "m.json").write_text("{columns: ")
    with pytest.raises(InvalidInput, match="m.json:1:2: not valid JSON: expecting property name"):
        read_sdv_metadata(tmp_path / "m.json")


def test_manifest_columns_override_the_metadata(tmp_path):
    (tmp_path / "o.csv").write_text(DATA)
    (tmp_path / "s.csv").write_text(DATA)
    (tmp_path / "metadata.json").write_text(json.dumps({"primary_key": "guest_id", "columns": COLUMNS}))
    (tmp_path / "release.yaml").write_text(
        "release: {id: r}\noriginal: o.csv\nsynthetic: [{path: s.csv}]\n"
        "metadata: metadata.json\ncolumns: {room_type: ignore}\n"
    )
    release = load_manifest(tmp_path / "release.yaml")
    assert release.roles == {**ROLES, "room_type": "ignore"}
